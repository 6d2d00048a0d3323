package dev.stoker.loader;

import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.dataset.EpochSampler;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.loader.internal.LoaderFront;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loader's resume state, following what the consumer has received: collate notes the state after
 * each batch it makes (after the batch's last clip), and handing the batch out makes that the loader's
 * state. Batches come in sampler order (every stage keeps input order), so the state covers exactly
 * the batches delivered. Shared by {@code VideoLoader} and the shard loader.
 */
public final class ResumeTracker {
    private final EpochSampler sampler;
    private final SamplerState start;
    private final Map<ClipBatch, SamplerState> afterBatch = new ConcurrentHashMap<>();
    private volatile SamplerState state;

    public ResumeTracker(EpochSampler sampler, SamplerState start) {
        this.sampler = sampler;
        this.start = start;
        this.state = start;
    }

    public EpochSampler sampler() { return sampler; }

    /** Where the loader started (a fresh start or the state it resumed from). */
    public SamplerState start() { return start; }

    /** The state after the last batch handed to the consumer. */
    public SamplerState state() { return state; }

    /**
     * Collate made {@code batch}, whose last clip is clip {@code clip} of {@code clipsOfSample} of the
     * sample at {@code position} in {@code epoch}.
     */
    public void collated(ClipBatch batch, int epoch, int position, int clip, int clipsOfSample) {
        afterBatch.put(batch, LoaderFront.stateAfter(sampler, epoch, position, clip, clipsOfSample));
    }

    /** {@code batches}, moving the state forward as each is handed out. */
    public Iterator<ClipBatch> tracking(Iterator<ClipBatch> batches) {
        return new OnEachHandedOut<>(batches, batch -> {
            SamplerState after = afterBatch.remove(batch);
            if (after != null) {
                state = after;
            }
        });
    }
}
