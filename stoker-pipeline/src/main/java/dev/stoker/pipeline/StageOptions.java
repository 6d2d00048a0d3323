package dev.stoker.pipeline;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;

/**
 * The per-stage settings given in code, as the last argument of {@link PipelineBuilder#map}:
 * {@code stage -> stage.concurrency(3).ordered()}. Settings from a {@link PipelineConfig} override these
 * by stage name.
 */
public final class StageOptions {
    StageConfig config = StageConfig.EMPTY;
    ExecutorService executor;
    Function<Object, String> describer;

    StageOptions() { }

    /** Worker threads, and so the most tasks in flight at once. Default 1. */
    public StageOptions concurrency(int workers) {
        config = config.overriddenBy(new StageConfig(workers, null, null, null, null, null));
        return this;
    }

    /** Capacity of the stage's input queue. Default: twice the concurrency, at least 2. */
    public StageOptions queueCapacity(int capacity) {
        config = config.overriddenBy(new StageConfig(null, capacity, null, null, null, null));
        return this;
    }

    /** Emit results in input order instead of completion order. */
    public StageOptions ordered() {
        return order(Order.INPUT);
    }

    public StageOptions order(Order order) {
        config = config.overriddenBy(new StageConfig(null, null, Objects.requireNonNull(order, "order"), null, null, null));
        return this;
    }

    /** Run the workers on virtual threads: for stages that mostly wait on I/O. */
    public StageOptions virtualThreads() {
        config = config.overriddenBy(new StageConfig(null, null, null, true, null, null));
        return this;
    }

    /**
     * Run this stage's tasks on a pool shared with other stages instead of the stage's own threads; the
     * stage's concurrency still caps how many of its tasks are in flight. The caller owns the pool.
     */
    public StageOptions executor(ExecutorService sharedPool) {
        this.executor = Objects.requireNonNull(sharedPool, "sharedPool");
        return this;
    }

    public StageOptions failureBudget(FailureBudget budget) {
        config = config.overriddenBy(new StageConfig(null, null, null, null, Objects.requireNonNull(budget, "budget"), null));
        return this;
    }

    /** A task running longer is interrupted and its item counted as failed. */
    public StageOptions taskTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("taskTimeout: " + timeout + " (expected: > 0)");
        }
        config = config.overriddenBy(new StageConfig(null, null, null, null, null, timeout.toMillis()));
        return this;
    }

    /** How failure reports name this stage's input items; default {@code String.valueOf}, cut to 200 chars. */
    @SuppressWarnings("unchecked")
    public <T> StageOptions describeItems(Function<? super T, String> describer) {
        this.describer = (Function<Object, String>) Objects.requireNonNull(describer, "describer");
        return this;
    }
}
