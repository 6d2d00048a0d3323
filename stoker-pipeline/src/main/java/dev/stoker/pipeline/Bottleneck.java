package dev.stoker.pipeline;

/**
 * The one definition of what limits a pipeline, used by the verdict every stats snapshot carries
 * ({@link PipelineStats#verdict()}) and by the online autotuner's choice of what to probe.
 *
 * <p><b>Consumer-bound.</b> A consumer that waits for data a share {@code s} of its time can go at most
 * {@code 1 / (1 - s)} times as fast however fast the loader gets: its own time per item does not shrink. So when
 * {@code s < g / (1 + g)} for the smallest gain worth acting on, {@code g = }{@link #MIN_GAIN}, no change to the
 * pipeline can pay, and no stage is the bottleneck however busy it is (a stage busy 80% of 3 workers keeps ahead
 * of the consumer; it does not limit it). The share is measured after the first delivery, so that start-up is not
 * mistaken for a slow loader.
 *
 * <p><b>Saturated.</b> Otherwise the stage busy the largest share of its worker-time limits throughput, and is
 * saturated from {@link #SATURATED_BUSY} of it: the share at which, in Flink's time split, a task's idle and
 * back-pressured time no longer hide a shortage of workers.
 *
 * <p><b>CPU-bound.</b> When no stage is saturated but the CPUs are busy a share {@code c} of the time (this process
 * on the cores it may use, or the whole machine), the idle rest could make the pipeline at most {@code 1 / c} times
 * as fast: below {@link #MIN_GAIN}, from {@code c = 1 / (1 + MIN_GAIN)}, more workers cannot pay.
 */
public final class Bottleneck {
    /** The smallest throughput gain worth acting on: the tuner keeps a change that gains this much, no less. */
    public static final double MIN_GAIN = 0.05;
    /** A stage's busy share of its worker-time from which it is saturated. */
    public static final double SATURATED_BUSY = 0.70;

    private Bottleneck() {
    }

    /** The consumer's wait share below which the consumer sets the pace: {@code MIN_GAIN / (1 + MIN_GAIN)}. */
    public static double consumerBoundWaitShare() {
        return MIN_GAIN / (1 + MIN_GAIN);
    }

    /** Whether a consumer that waited for data {@code consumerWaitShare} of its time sets the pace. */
    public static boolean consumerBound(double consumerWaitShare) {
        return consumerWaitShare < consumerBoundWaitShare();
    }

    /** Whether CPUs busy {@code cpuShare} of their time (NaN: not known) leave too little to gain by more workers. */
    public static boolean cpuBound(double cpuShare) {
        return cpuShare >= 1 / (1 + MIN_GAIN);
    }

    /** Whether a stage busy {@code busyFraction} of its worker-time is saturated. */
    public static boolean saturated(double busyFraction) {
        return busyFraction >= SATURATED_BUSY;
    }
}
