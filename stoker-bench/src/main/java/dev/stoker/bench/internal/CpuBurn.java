package dev.stoker.bench.internal;

/**
 * Deterministic CPU work that stands in for decoding: a fixed number of xorshift rounds per call,
 * calibrated once so that {@link #burn} of {@code micros} takes about that long on an idle core. The
 * work is fixed, not the time: when threads outnumber cores, tasks take longer, as real decoding would.
 */
public final class CpuBurn {
    private static final long CALIBRATION_NANOS = 60_000_000;
    private static volatile CpuBurn calibrated;

    private final double roundsPerMicro;

    private CpuBurn(double roundsPerMicro) {
        this.roundsPerMicro = roundsPerMicro;
    }

    /** Measured once per JVM (about 0.1 s). */
    public static CpuBurn calibrated() {
        CpuBurn burn = calibrated;
        if (burn == null) {
            synchronized (CpuBurn.class) {
                burn = calibrated;
                if (burn == null) {
                    burn = calibrated = calibrate();
                }
            }
        }
        return burn;
    }

    private static CpuBurn calibrate() {
        long sink = 0;
        for (int i = 0; i < 20; i++) {   // warm up the JIT on the loop
            sink += rounds(200_000, i);
        }
        long chunk = 1_000_000;
        double bestNanosPerRound = Double.MAX_VALUE;
        long deadline = System.nanoTime() + CALIBRATION_NANOS;
        while (System.nanoTime() < deadline) {
            long start = System.nanoTime();
            sink += rounds(chunk, sink);
            bestNanosPerRound = Math.min(bestNanosPerRound, (System.nanoTime() - start) / (double) chunk);
        }
        if (sink == 42) {               // keeps the JIT from dropping the loop
            System.out.print("");
        }
        return new CpuBurn(1000 / Math.max(bestNanosPerRound, 0.01));
    }

    /** Burns about {@code micros} of CPU; the result depends only on the arguments. */
    public long burn(long micros, long seed) {
        return rounds(Math.max(1, Math.round(micros * roundsPerMicro)), seed);
    }

    private static long rounds(long n, long seed) {
        long x = seed | 1;
        for (long i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }
}
