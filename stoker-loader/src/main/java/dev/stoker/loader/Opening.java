package dev.stoker.loader;

import dev.stoker.loader.batch.BatchMemory;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.pipeline.TraceRecorder;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How a loader is opened, beside its {@link LoaderOptions}: where it starts (from the beginning, or resumed from a
 * {@link ClipLoader#state()}), whether a trace records its tasks, where its batch buffers come from, how many batches
 * its consumer holds at once, and the settings of one kind of loader (the shard loader's read-ahead, a GPU's
 * transfer), by their type. Every loader has one {@code open(dataset, options, opening)}, and {@code Loaders.open}
 * passes it on.
 *
 * <p>Not part of the options document: what is here belongs to this process (a recorder, a memory, a state read
 * from a checkpoint), not to a file another process could send. Immutable: each {@code with} gives a copy.
 *
 * <pre>{@code
 * Opening.defaults().resumingFrom(checkpoint.state()).tracedBy(TraceRecorder.create())
 * }</pre>
 */
public final class Opening {
    private static final Opening DEFAULTS = new Opening(null, null, null, 1, Map.of());

    private final SamplerState resumeFrom;
    private final TraceRecorder trace;
    private final BatchMemory batchMemory;
    private final int consumerBatches;
    private final Map<Class<?>, Object> settings;

    private Opening(SamplerState resumeFrom, TraceRecorder trace, BatchMemory batchMemory, int consumerBatches,
                    Map<Class<?>, Object> settings) {
        this.resumeFrom = resumeFrom;
        this.trace = trace;
        this.batchMemory = batchMemory;
        this.consumerBatches = consumerBatches;
        this.settings = settings;
    }

    /** From the start of epoch 0, no trace, batches in off-heap memory, a consumer holding one batch at a time. */
    public static Opening defaults() { return DEFAULTS; }

    /**
     * Continue where the loader that gave {@code state} ({@link ClipLoader#state()}) stood: exactly the clips, clip
     * times and crops the uninterrupted loader would have delivered next, in the same batches. The loader's options
     * must be the original ones (it checks the sampling settings and the dataset against the state). Null: from the
     * start.
     */
    public Opening resumingFrom(SamplerState state) {
        return new Opening(state, trace, batchMemory, consumerBatches, settings);
    }

    /** Record every task of the loader's pipeline in {@code recorder} (a Chrome trace); null: none. */
    public Opening tracedBy(TraceRecorder recorder) {
        return new Opening(resumeFrom, recorder, batchMemory, consumerBatches, settings);
    }

    /**
     * Take the batch buffers from {@code memory} (pinned host memory a GPU copies from, a shared-memory file another
     * process maps), which the loader then owns and frees; null: plain off-heap memory. One memory, one loader.
     */
    public Opening batchesIn(BatchMemory memory) {
        return new Opening(resumeFrom, trace, memory, consumerBatches, settings);
    }

    /**
     * The consumer holds up to {@code batches} batches at once (1 by default; a transfer to a GPU holds the ones whose
     * copies still run too): the batch pool is sized for them ({@link MemoryPlan#batchesHeld()}).
     */
    public Opening consumerHolding(int batches) {
        if (batches < 1) {
            throw new IllegalArgumentException("consumerBatches: " + batches + " (expected: 1+)");
        }
        return new Opening(resumeFrom, trace, batchMemory, batches, settings);
    }

    /**
     * With a setting of one kind of loader, found by its type ({@link #setting}); it replaces one of the same type.
     * A loader that has no use for it ignores it (a read-ahead means nothing to a loader of video files).
     */
    public Opening with(Object setting) {
        Map<Class<?>, Object> more = new LinkedHashMap<>(settings);
        more.put(Objects.requireNonNull(setting, "setting").getClass(), setting);
        return new Opening(resumeFrom, trace, batchMemory, consumerBatches, Map.copyOf(more));
    }

    /** The state to resume from; empty: from the start. */
    public Optional<SamplerState> resumeFrom() { return Optional.ofNullable(resumeFrom); }

    /** The recorder of every task; empty: no trace. */
    public Optional<TraceRecorder> trace() { return Optional.ofNullable(trace); }

    /** The memory to allocate batch buffers from: the one given, else a new off-heap memory. The loader owns it. */
    public BatchMemory batchMemory() {
        return batchMemory != null ? batchMemory : BatchMemory.offHeap();
    }

    /** Batches the consumer holds at once. */
    public int consumerBatches() { return consumerBatches; }

    /** The setting of type {@code type}, or {@code otherwise} when none was given. */
    public <T> T setting(Class<T> type, T otherwise) {
        Object value = settings.get(type);
        return value != null ? type.cast(value) : Objects.requireNonNull(otherwise, "otherwise");
    }

    /** The setting of type {@code type}; empty when none was given. */
    public <T> Optional<T> setting(Class<T> type) {
        return Optional.ofNullable(settings.get(type)).map(type::cast);
    }

    @Override
    public String toString() {
        return "Opening[" + (resumeFrom == null ? "from the start" : "resuming from " + resumeFrom)
                + (trace == null ? "" : ", traced") + (batchMemory == null ? "" : ", batches in " + batchMemory)
                + (consumerBatches == 1 ? "" : ", consumer holding " + consumerBatches) + ", settings " + settings.values()
                + "]";
    }
}
