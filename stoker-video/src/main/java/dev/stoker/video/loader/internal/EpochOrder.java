package dev.stoker.video.loader.internal;

import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.EpochSampler;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.loader.internal.LoaderFront;
import dev.stoker.pipeline.EpochSource;
import dev.stoker.video.loader.Quarantine;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Consumer;

/**
 * The order videos are visited in: the {@link EpochSampler}'s sequence for this rank (a pure function of
 * seed, epoch and dataset), from a start state on, so the order is known ahead, a rerun sees the same
 * sequence and a resumed run continues it. The pipeline's epoch {@code k} is the sampler's epoch
 * {@code start.epoch() + k}.
 */
public final class EpochOrder implements EpochSource<VideoTask> {
    private final EpochSource<VideoTask> tasks;
    private final Dataset dataset;
    private final QuarantineGate gate;

    /** {@code gate}: where quarantined videos are skipped, as they are handed on; null for none. */
    public EpochOrder(Dataset dataset, EpochSampler sampler, SamplerState start, int epochs, QuarantineGate gate) {
        this.tasks = LoaderFront.tasks(sampler, start, epochs, (draw, firstClip) -> new VideoTask(
                dataset.get(draw.sampleIndex()), draw.sampleIndex(), draw.epoch(), draw.position(), firstClip));
        this.dataset = dataset;
        this.gate = gate;
    }

    /**
     * Whether every video of the dataset is quarantined: the epochs after would be as empty as this one, and a loader
     * that ran them (endless epochs) would spin delivering nothing, under the failure budget's minimum. Asked only of
     * an epoch that admitted nothing: one rank's share (or a resumed epoch's rest) may be all quarantined while the
     * dataset is not.
     */
    private boolean allQuarantined() {
        Quarantine quarantine = gate.quarantine();
        return dataset.entries().stream().allMatch(e -> quarantine.contains(e.path()));
    }

    @Override
    public Iterable<? extends VideoTask> epoch(int epoch) {
        Iterable<? extends VideoTask> epochTasks = tasks.epoch(epoch);
        if (epochTasks == null) {
            return null;
        }
        // Filtered as the source hands each one on, not when the epoch is listed: a file that failed late in
        // the previous epoch is known by then.
        return gate == null ? epochTasks : () -> admitted(epochTasks.iterator());
    }

    private Iterator<VideoTask> admitted(Iterator<? extends VideoTask> tasks) {
        return Spliterators.iterator(new Spliterators.AbstractSpliterator<VideoTask>(Long.MAX_VALUE, Spliterator.ORDERED) {
            private long visited;
            private long admitted;

            @Override
            public boolean tryAdvance(Consumer<? super VideoTask> action) {
                while (tasks.hasNext()) {
                    VideoTask task = tasks.next();
                    visited++;
                    if (gate.admit(task)) {
                        admitted++;
                        action.accept(task);
                        return true;
                    }
                }
                if (visited > 0 && admitted == 0 && allQuarantined()) {
                    Path file = gate.quarantine().file();
                    throw new IllegalStateException("every video of the dataset (" + dataset.size() + ") is quarantined:"
                            + " each failed before" + (file != null ? " (listed in " + file + ")" : " (see the failures)")
                            + ", so nothing is left to load");
                }
                return false;
            }
        });
    }
}
