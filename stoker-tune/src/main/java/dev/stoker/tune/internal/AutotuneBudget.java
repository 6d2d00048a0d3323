package dev.stoker.tune.internal;

import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * What the online autotuner may spend, and how it measures.
 *
 * @param cores              CPU the process may use, in cores (measured: process CPU time per second)
 * @param ramBytes           memory the stages' items may hold ({@link #ramBytes(PipelineConfig)}); {@code Long.MAX_VALUE}
 *                           for no limit
 * @param bytesPerItem       estimated bytes one item holds, by stage name ({@code "sink"} for the sink's items);
 *                           stages not named count 0. A video loader gives its own: {@code loader.itemBytesByStage()}
 * @param heldBytes          the bytes a config holds, when the pipeline knows better than {@code bytesPerItem}
 *                           (a loader: what its memory plan lets its pools and stages hold with that config); null:
 *                           workers and queues times {@code bytesPerItem}
 * @param maxConcurrency     most workers for any stage
 * @param maxQueueCapacity   largest queue or sink capacity
 * @param window             one measurement window; a probe takes a settling window and {@code probeWindows} more
 * @param probeWindows       windows measured per probe (and per baseline)
 * @param minItems           items a measurement must see delivered: it runs on, window by window (up to 8 times
 *                           as long), until it has; a pipeline that delivers few large items (batches) needs
 *                           enough of them for a rate that is not mostly rounding
 */
public record AutotuneBudget(double cores, long ramBytes, Map<String, Long> bytesPerItem,
                             ToLongFunction<PipelineConfig> heldBytes, int maxConcurrency,
                             int maxQueueCapacity, Duration window, int probeWindows, int minItems) {
    public AutotuneBudget {
        if (!(cores > 0)) {
            throw new IllegalArgumentException("cores: " + cores + " (expected: > 0)");
        }
        if (ramBytes < 1 || maxConcurrency < 1 || maxQueueCapacity < 1 || probeWindows < 1 || minItems < 1) {
            throw new IllegalArgumentException("budget: ramBytes " + ramBytes + ", maxConcurrency " + maxConcurrency
                    + ", maxQueueCapacity " + maxQueueCapacity + ", probeWindows " + probeWindows + ", minItems " + minItems
                    + " (expected: 1+ each)");
        }
        bytesPerItem = Map.copyOf(bytesPerItem);
        Objects.requireNonNull(window, "window");
        if (window.toMillis() < 20) {
            throw new IllegalArgumentException("window: " + window.toMillis() + " ms (expected: 20+ ms)");
        }
    }

    /** All the machine's cores, no RAM limit, up to 2 x cores workers per stage, 0.5 s windows, 20 items a measurement. */
    public static AutotuneBudget defaults() {
        int n = Runtime.getRuntime().availableProcessors();
        return new AutotuneBudget(n, Long.MAX_VALUE, Map.of(), null, Math.max(4, 2 * n), 64, Duration.ofMillis(500), 2, 20);
    }

    /**
     * Bytes the stages' items may hold with {@code config}: over the stages, (workers + queue capacity) x the
     * stage's {@link #bytesPerItem}, plus the sink's capacity x the sink's. An estimate: what a stage keeps
     * parked for ordering, or allocates inside a task, is not counted.
     */
    public long ramBytes(PipelineConfig config) {
        if (heldBytes != null) {
            return heldBytes.applyAsLong(config);
        }
        long total = 0;
        for (Map.Entry<String, StageConfig> s : config.stages().entrySet()) {
            long per = bytesPerItem.getOrDefault(s.getKey(), 0L);
            StageConfig c = s.getValue();
            total += per * ((c.concurrency() == null ? 1 : c.concurrency()) + (c.queueCapacity() == null ? 0 : c.queueCapacity()));
        }
        return total + bytesPerItem.getOrDefault("sink", 0L) * (config.sinkCapacity() == null ? 0 : config.sinkCapacity());
    }

    /** Whether {@code config} holds no more than {@link #ramBytes()}. */
    public boolean fitsRam(PipelineConfig config) {
        return ramBytes == Long.MAX_VALUE || ramBytes(config) <= ramBytes;
    }

    public AutotuneBudget withCores(double c) {
        return new AutotuneBudget(c, ramBytes, bytesPerItem, heldBytes, maxConcurrency, maxQueueCapacity, window, probeWindows, minItems);
    }

    public AutotuneBudget withRam(long bytes, Map<String, Long> perItem) {
        return new AutotuneBudget(cores, bytes, perItem, null, maxConcurrency, maxQueueCapacity, window, probeWindows, minItems);
    }

    /**
     * At most {@code bytes} by the pipeline's own memory model {@code held} (a loader's {@code MemoryPlan});
     * {@code perItem} still tells which queue holds the most when one must shrink.
     */
    public AutotuneBudget withRam(long bytes, Map<String, Long> perItem, ToLongFunction<PipelineConfig> held) {
        return new AutotuneBudget(cores, bytes, perItem, held, maxConcurrency, maxQueueCapacity, window, probeWindows, minItems);
    }

    public AutotuneBudget withMaxConcurrency(int n) {
        return new AutotuneBudget(cores, ramBytes, bytesPerItem, heldBytes, n, maxQueueCapacity, window, probeWindows, minItems);
    }

    public AutotuneBudget withMaxQueueCapacity(int n) {
        return new AutotuneBudget(cores, ramBytes, bytesPerItem, heldBytes, maxConcurrency, n, window, probeWindows, minItems);
    }

    public AutotuneBudget withWindow(Duration w, int windowsPerProbe) {
        return new AutotuneBudget(cores, ramBytes, bytesPerItem, heldBytes, maxConcurrency, maxQueueCapacity, w, windowsPerProbe, minItems);
    }

    public AutotuneBudget withMinItems(int n) {
        return new AutotuneBudget(cores, ramBytes, bytesPerItem, heldBytes, maxConcurrency, maxQueueCapacity, window, probeWindows, n);
    }
}
