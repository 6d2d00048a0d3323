package dev.stoker.pipeline;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The knobs of one stage, kept apart from its code so that a config file, a tuner or a subprocess can
 * change them. Every field is optional: {@code null} keeps what the code (or an earlier config) set.
 *
 * @param concurrency       worker threads, i.e. the most tasks in flight (1+)
 * @param queueCapacity     capacity of the stage's input queue (1+)
 * @param order             output order
 * @param virtualThreads    run workers on virtual threads (for I/O-bound stages)
 * @param failureBudget     failures the stage may skip
 * @param taskTimeoutMillis a task running longer is interrupted and counted as failed; 0 for none
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StageConfig(Integer concurrency, Integer queueCapacity, Order order, Boolean virtualThreads,
                          FailureBudget failureBudget, Long taskTimeoutMillis) {

    public static final StageConfig EMPTY = new StageConfig(null, null, null, null, null, null);

    /** {@code concurrency} workers that keep input order (known order, exact resume); the rest defaults. */
    public static StageConfig inInputOrder(int concurrency) {
        return new StageConfig(concurrency, null, Order.INPUT, null, null, null);
    }

    public StageConfig {
        if (concurrency != null && concurrency < 1) {
            throw new InvalidValueException("concurrency", concurrency, "1+");
        }
        if (queueCapacity != null && queueCapacity < 1) {
            throw new IllegalArgumentException("queueCapacity: " + queueCapacity + " (expected: 1+)");
        }
        if (taskTimeoutMillis != null && taskTimeoutMillis < 0) {
            throw new IllegalArgumentException("taskTimeoutMillis: " + taskTimeoutMillis + " (expected: 0+, 0 = none)");
        }
    }

    /** This config with the non-null fields of {@code other} laid over it. */
    public StageConfig overriddenBy(StageConfig other) {
        if (other == null) {
            return this;
        }
        return new StageConfig(
                other.concurrency != null ? other.concurrency : concurrency,
                other.queueCapacity != null ? other.queueCapacity : queueCapacity,
                other.order != null ? other.order : order,
                other.virtualThreads != null ? other.virtualThreads : virtualThreads,
                other.failureBudget != null ? other.failureBudget : failureBudget,
                other.taskTimeoutMillis != null ? other.taskTimeoutMillis : taskTimeoutMillis);
    }

    /**
     * This stage's settings with every open field filled in as the pipeline fills it (the one place these defaults
     * live): one worker, an input queue of twice the workers and at least 2, {@link Order#COMPLETION}, platform
     * threads, {@link FailureBudget#DEFAULT_STAGE}, no task timeout.
     */
    public StageConfig settled() {
        int workers = concurrency != null ? concurrency : 1;
        return new StageConfig(workers,
                queueCapacity != null ? queueCapacity : Math.max(2, 2 * workers),
                order != null ? order : Order.COMPLETION,
                virtualThreads != null ? virtualThreads : false,
                failureBudget != null ? failureBudget : FailureBudget.DEFAULT_STAGE,
                taskTimeoutMillis != null ? taskTimeoutMillis : 0L);
    }

    /**
     * With {@link Order#INPUT}, how many items may be taken and not yet emitted at once: running, or done and
     * parked behind an older one still running. A straggler holds up this many (its results wait in
     * memory), so it sizes both what a slow item can be overtaken by and what the parked results cost.
     * For an effective config, where both sizes are set.
     */
    public int inputOrderWindow() {
        if (concurrency == null || queueCapacity == null) {
            throw new IllegalStateException("inputOrderWindow of " + this + " (expected: concurrency and queueCapacity set)");
        }
        return dev.stoker.pipeline.internal.ReorderBuffer.windowFor(concurrency, queueCapacity);
    }

    public StageConfig withConcurrency(int n) {
        return new StageConfig(n, queueCapacity, order, virtualThreads, failureBudget, taskTimeoutMillis);
    }

    public StageConfig withQueueCapacity(int n) {
        return new StageConfig(concurrency, n, order, virtualThreads, failureBudget, taskTimeoutMillis);
    }
}
