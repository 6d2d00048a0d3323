package dev.stoker.loader;

import java.util.Arrays;
import java.util.Optional;

/**
 * The settings of one stage in the options document ({@code config.stages.STAGE.FIELD}, a
 * {@link dev.stoker.pipeline.StageConfig}): the field, its Python keyword where the bridge takes it as a
 * dictionary of stage to value ({@code concurrency={STAGE: 3}}), its lower bound and meaning.
 */
public enum StageOption {
    CONCURRENCY("concurrency", "concurrency", 1, "Worker threads of the stage: the most tasks in flight."),
    QUEUE_CAPACITY("queueCapacity", "queue_capacity", 1, "Capacity of the stage's input queue."),
    ORDER("order", null, null, "Output order: INPUT (known order, exact resume) or COMPLETION."),
    VIRTUAL_THREADS("virtualThreads", null, null, "Run the workers on virtual threads (for stages that wait on I/O)."),
    FAILURE_BUDGET("failureBudget", null, null, "Failures the stage may skip."),
    TASK_TIMEOUT_MILLIS("taskTimeoutMillis", null, 0,
            "A task running longer is interrupted and counted as failed; 0: no timeout.");

    private final String field;
    private final String keyword;
    private final Long minimum;
    private final String description;

    StageOption(String field, String keyword, Integer minimum, String description) {
        this.field = field;
        this.keyword = keyword;
        this.minimum = minimum == null ? null : minimum.longValue();
        this.description = description;
    }

    /** The field's name in a stage's settings: {@code "concurrency"}. */
    public String field() { return field; }

    /** The path of this setting of {@code stage}: {@code config.stages.decode.concurrency}. */
    public String pathFor(String stage) {
        return LoaderOption.STAGES.path() + "." + stage + "." + field;
    }

    /** The Python keyword that takes it for every stage at once, as a dictionary of stage to value, if there is one. */
    public Optional<String> keyword() { return Optional.ofNullable(keyword); }

    public Optional<Long> minimum() { return Optional.ofNullable(minimum); }

    public String description() { return description; }

    /** The setting called {@code field} ({@code "queueCapacity"}), if there is one. */
    public static Optional<StageOption> ofField(String field) {
        return Arrays.stream(values()).filter(o -> o.field.equals(field)).findFirst();
    }
}
