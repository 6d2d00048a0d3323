package dev.stoker.video.loader.internal;

import dev.stoker.loader.internal.LoaderFront;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.ResumeTracker;
import dev.stoker.loader.VideoStage;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineBuilder;
import dev.stoker.video.FfmpegNatives;
import dev.stoker.video.loader.VideoLoader;

/**
 * The {@link VideoLoader}'s stages up to demux, for loaders that decode elsewhere (stoker-gpu's NVDEC loader): the
 * same seeded epoch order ({@link LoaderFront}), the same fetch and demux stages (so the same clip starts) and the
 * same crops, so that a clip decoded on a GPU is the clip the CPU loader would have decoded.
 */
public final class VideoFront {

    private VideoFront() {
    }

    /**
     * Source → fetch → demux from {@code from}'s state on, with {@code options}' failure budget on each stage:
     * the demuxed videos with their clip starts, in the sampler's order. The caller adds its decode and
     * collate stages and the pipeline config (stages {@code fetch} and {@code demux}).
     */
    public static PipelineBuilder<OpenedVideo> demuxed(Dataset dataset, LoaderOptions options, ResumeTracker from) {
        return demux(fetched(dataset, options, from, null), options);
    }

    /** Source → fetch, the source skipping the videos {@code gate} (nullable) holds quarantined. */
    public static PipelineBuilder<FetchedVideo> fetched(Dataset dataset, LoaderOptions options, ResumeTracker from,
                                                 QuarantineGate gate) {
        FailureBudget budget = options.failureBudget();
        return Pipeline.fromEpochs(new EpochOrder(dataset, from.sampler(), from.start(), options.sampling().epochs(), gate))
                .map(VideoStage.FETCH.stageName(), FetchFactory.class, options.toJson(), s -> s.failureBudget(budget));
    }

    /**
     * {@code fetched} → demux. FFmpeg starts warming up here ({@link FfmpegNatives}): its first use costs about
     * 0.3 s of class initialisation, which then overlaps the rest of the pipeline's setup and the first fetches
     * instead of delaying the first demux.
     */
    public static PipelineBuilder<OpenedVideo> demux(PipelineBuilder<FetchedVideo> fetched, LoaderOptions options) {
        FfmpegNatives.warmUpInBackground();
        FailureBudget budget = options.failureBudget();
        return fetched.map(VideoStage.DEMUX.stageName(), DemuxFactory.class, options.toJson(), s -> s.failureBudget(budget));
    }

    /**
     * The resize of clip {@code clip} of {@code task}'s video (its index among the clip starts demux gave,
     * which skip the clips a resumed run delivered before).
     */
    public static Resize resize(LoaderOptions options, VideoTask task, int clip) {
        return LoaderFront.resize(options, task.epoch(), task.index(), task.firstClip() + clip);
    }

    /**
     * The frames of clip {@code clip} of {@code task}'s video (counted as {@link #resize} counts), starting at
     * {@code start}, all within the entry's range: the frames a shard of that range holds.
     */
    public static ClipSpec clip(LoaderOptions options, VideoTask task, int clip, double start) {
        return LoaderFront.clip(options, task.epoch(), task.index(), task.firstClip() + clip, start, range(task.entry()));
    }

    /** The entry's range as clip bounds; the whole video when it names none. */
    public static ClipSpec.Bounds range(VideoEntry entry) {
        if (entry.startSeconds().isEmpty() && entry.endSeconds().isEmpty()) {
            return ClipSpec.Bounds.WHOLE;
        }
        return new ClipSpec.Bounds(entry.startSeconds().orElse(0), entry.endSeconds().orElse(Double.POSITIVE_INFINITY));
    }
}
