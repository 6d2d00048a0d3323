package dev.stoker.tune;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * What the online autotuner may spend, and how often it looks.
 *
 * @param cores              CPU the process may use, in cores (measured: process CPU time per second)
 * @param ramBytes           memory the stages' items may hold: sum over stages of (workers + queue capacity) x
 *                           {@code bytesPerItem} of the stage, plus the sink's; {@code Long.MAX_VALUE} for none
 * @param bytesPerItem       estimated bytes one item holds, by stage name ({@code "sink"} for the sink's items);
 *                           stages not named count 0
 * @param maxConcurrency     most workers for any stage
 * @param maxQueueCapacity   largest queue or sink capacity
 * @param window             one measurement window; a probe takes a settling window and {@code probeWindows} more
 * @param probeWindows       windows measured per probe (and per baseline)
 */
public record AutotuneBudget(double cores, long ramBytes, Map<String, Long> bytesPerItem, int maxConcurrency,
                             int maxQueueCapacity, Duration window, int probeWindows) {
    public AutotuneBudget {
        if (!(cores > 0)) {
            throw new IllegalArgumentException("cores: " + cores + " (expected: > 0)");
        }
        if (ramBytes < 1 || maxConcurrency < 1 || maxQueueCapacity < 1 || probeWindows < 1) {
            throw new IllegalArgumentException("budget: ramBytes " + ramBytes + ", maxConcurrency " + maxConcurrency
                    + ", maxQueueCapacity " + maxQueueCapacity + ", probeWindows " + probeWindows + " (expected: 1+ each)");
        }
        bytesPerItem = Map.copyOf(bytesPerItem);
        Objects.requireNonNull(window, "window");
        if (window.toMillis() < 20) {
            throw new IllegalArgumentException("window: " + window.toMillis() + " ms (expected: 20+ ms)");
        }
    }

    /** All the machine's cores, no RAM limit, up to 2 x cores workers per stage, 0.5 s windows. */
    public static AutotuneBudget defaults() {
        int n = Runtime.getRuntime().availableProcessors();
        return new AutotuneBudget(n, Long.MAX_VALUE, Map.of(), Math.max(4, 2 * n), 64, Duration.ofMillis(500), 2);
    }

    public AutotuneBudget withCores(double c) {
        return new AutotuneBudget(c, ramBytes, bytesPerItem, maxConcurrency, maxQueueCapacity, window, probeWindows);
    }

    public AutotuneBudget withRam(long bytes, Map<String, Long> perItem) {
        return new AutotuneBudget(cores, bytes, perItem, maxConcurrency, maxQueueCapacity, window, probeWindows);
    }

    public AutotuneBudget withMaxConcurrency(int n) {
        return new AutotuneBudget(cores, ramBytes, bytesPerItem, n, maxQueueCapacity, window, probeWindows);
    }

    public AutotuneBudget withMaxQueueCapacity(int n) {
        return new AutotuneBudget(cores, ramBytes, bytesPerItem, maxConcurrency, n, window, probeWindows);
    }

    public AutotuneBudget withWindow(Duration w, int windowsPerProbe) {
        return new AutotuneBudget(cores, ramBytes, bytesPerItem, maxConcurrency, maxQueueCapacity, w, windowsPerProbe);
    }
}
