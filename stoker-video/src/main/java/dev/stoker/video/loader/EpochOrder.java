package dev.stoker.video.loader;

import dev.stoker.pipeline.EpochSource;
import dev.stoker.video.dataset.Dataset;
import dev.stoker.video.dataset.EpochSampler;
import dev.stoker.video.dataset.SampleDraw;
import dev.stoker.video.dataset.SampleGroups;
import dev.stoker.video.dataset.SamplerState;
import dev.stoker.video.dataset.VideoEntry;
import java.util.ArrayList;
import java.util.List;

/**
 * The order videos are visited in: the {@link EpochSampler}'s sequence for this rank (a pure function of
 * seed, epoch and dataset), from a start state on, so the order is known ahead, a rerun sees the same
 * sequence and a resumed run continues it. The pipeline's epoch {@code k} is the sampler's epoch
 * {@code start.epoch() + k}.
 */
final class EpochOrder implements EpochSource<VideoTask> {
    private final Dataset dataset;
    private final EpochSource<SampleDraw> draws;
    private final SamplerState start;

    EpochOrder(Dataset dataset, EpochSampler sampler, SamplerState start, int epochs) {
        this.dataset = dataset;
        this.draws = sampler.source(start, epochs);
        this.start = start;
    }

    /** The dataset as the sampler sees it: the entries of one file form a group. */
    static SampleGroups groups(Dataset dataset) {
        return SampleGroups.byKey(dataset.entries().stream().map(VideoEntry::path).toList());
    }

    @Override
    public List<VideoTask> epoch(int epoch) {
        Iterable<? extends SampleDraw> epochDraws = draws.epoch(epoch);
        if (epochDraws == null) {
            return null;
        }
        List<VideoTask> tasks = new ArrayList<>();
        for (SampleDraw d : epochDraws) {
            int firstClip = epoch == 0 && d.position() == start.position() ? start.clipsDelivered() : 0;
            tasks.add(new VideoTask(dataset.get(d.sampleIndex()), d.sampleIndex(), d.epoch(), d.position(), firstClip));
        }
        return tasks;
    }
}
