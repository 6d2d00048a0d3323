package dev.stoker.loader.dataset.internal;

/**
 * SplitMix64 written out, so that epoch orders and draw seeds do not depend on the JDK's generator
 * implementations: a saved sampler state stays valid across JDK upgrades. {@link #mix} also derives the
 * demo dataset's per-clip seeds.
 */
public final class SplitMix {
    private static final long GAMMA = 0x9E3779B97F4A7C15L;
    private long state;

    public SplitMix(long seed) {
        this.state = seed;
    }

    /** SplitMix64 finaliser over (a, b): neighbouring inputs get unrelated outputs. */
    public static long mix(long a, long b) {
        return finish(a + GAMMA * (b + 1));
    }

    private static long finish(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    long nextLong() {
        state += GAMMA;
        return finish(state);
    }

    /** Uniform in {@code [0, bound)} (Lemire's multiply-shift with rejection; no modulo bias). */
    int nextInt(int bound) {
        long m = (nextLong() >>> 32) * bound;
        if ((m & 0xFFFFFFFFL) < bound) {
            long threshold = (0x1_0000_0000L - bound) % bound;
            while ((m & 0xFFFFFFFFL) < threshold) {
                m = (nextLong() >>> 32) * bound;
            }
        }
        return (int) (m >>> 32);
    }

    /** Fisher–Yates over {@code a[from, to)}. */
    public void shuffle(int[] a, int from, int to) {
        for (int i = to - 1; i > from; i--) {
            int j = from + nextInt(i - from + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
}
