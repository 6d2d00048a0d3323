package dev.stoker.jmh;

import org.openjdk.jmh.annotations.CompilerControl;

/**
 * A deterministic CPU-bound task: {@code iterations} rounds of xorshift64 on the seed. Each round depends
 * on the one before and has no closed form, so the JIT can neither vectorise nor skip it, and the cost is
 * linear in {@code iterations}. The result must be consumed (returned to a Blackhole) or the loop is dead.
 */
final class BusyWork {
    /**
     * Rounds for about 100 µs on the reference machine (2-core Xeon, JDK 25, see docs/benchmarks.md);
     * the single-thread benchmark reports what it costs on yours.
     */
    static final int ROUNDS_100_MICROS = 26_000;

    private BusyWork() { }

    /** Never inlined, so every benchmark runs the same compiled loop whatever its caller. */
    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    static long spin(long seed, int iterations) {
        long x = seed | 1;
        for (int i = 0; i < iterations; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    /** Prints the cost of {@code spin} per call, for calibrating {@link #ROUNDS_100_MICROS}. */
    public static void main(String[] args) {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : ROUNDS_100_MICROS;
        long sink = 0;
        for (int round = 0; round < 10; round++) {
            int calls = 2_000;
            long start = System.nanoTime();
            for (int i = 0; i < calls; i++) {
                sink += spin(i, iterations);
            }
            long micros = (System.nanoTime() - start) / 1_000 / calls;
            System.out.println("spin(" + iterations + "): " + micros + " us/call");
        }
        System.out.println(sink == 42 ? "" : "done");
    }
}
