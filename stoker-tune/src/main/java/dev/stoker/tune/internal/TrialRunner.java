package dev.stoker.tune.internal;

import dev.stoker.tune.Tuner;

/**
 * Runs one trial of the tuner: a pipeline config (and options) in, throughput and per-stage stats out.
 * The {@link Tuner} does not know how: {@code stoker tune} runs {@code stoker bench} in a child process;
 * tests run synthetic pipelines in this one.
 */
@FunctionalInterface
public interface TrialRunner {
    /**
     * Runs {@code trial} and measures it.
     *
     * @throws java.util.concurrent.TimeoutException when it ran past {@link TrialSpec#timeoutMillis()} (it was stopped)
     * @throws Exception                              when it failed; the tuner records the trial as failed and goes on
     */
    TrialMetrics run(TrialSpec trial) throws Exception;
}
