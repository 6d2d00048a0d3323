package dev.stoker.video.loader.internal;

import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.EpochSampler;
import dev.stoker.loader.dataset.internal.SampleDraw;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.pipeline.EpochSource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * The order videos are visited in: the {@link EpochSampler}'s sequence for this rank (a pure function of
 * seed, epoch and dataset), from a start state on, so the order is known ahead, a rerun sees the same
 * sequence and a resumed run continues it. The pipeline's epoch {@code k} is the sampler's epoch
 * {@code start.epoch() + k}.
 */
public final class EpochOrder implements EpochSource<VideoTask> {
    private final Dataset dataset;
    private final EpochSource<SampleDraw> draws;
    private final SamplerState start;
    private final QuarantineGate gate;

    /** {@code gate}: where quarantined videos are skipped, as they are handed on; null for none. */
    public EpochOrder(Dataset dataset, EpochSampler sampler, SamplerState start, int epochs, QuarantineGate gate) {
        this.dataset = dataset;
        this.draws = sampler.source(start, epochs);
        this.start = start;
        this.gate = gate;
    }

    @Override
    public Iterable<VideoTask> epoch(int epoch) {
        Iterable<? extends SampleDraw> epochDraws = draws.epoch(epoch);
        if (epochDraws == null) {
            return null;
        }
        List<VideoTask> tasks = new ArrayList<>();
        for (SampleDraw d : epochDraws) {
            int firstClip = epoch == 0 && d.position() == start.position() ? start.clipsDelivered() : 0;
            tasks.add(new VideoTask(dataset.get(d.sampleIndex()), d.sampleIndex(), d.epoch(), d.position(), firstClip));
        }
        // Filtered as the source hands each one on, not when the epoch is listed: a file that failed late in
        // the previous epoch is known by then.
        return gate == null ? tasks : () -> admitted(tasks.iterator());
    }

    private Iterator<VideoTask> admitted(Iterator<VideoTask> tasks) {
        return new Iterator<>() {
            private VideoTask next;

            @Override
            public boolean hasNext() {
                while (next == null && tasks.hasNext()) {
                    VideoTask task = tasks.next();
                    if (gate.admit(task)) {
                        next = task;
                    }
                }
                return next != null;
            }

            @Override
            public VideoTask next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                VideoTask task = next;
                next = null;
                return task;
            }
        };
    }
}
