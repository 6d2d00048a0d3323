package dev.stoker.video.loader;

import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineBuilder;
import dev.stoker.video.FfmpegNatives;
import dev.stoker.video.Resize;
import dev.stoker.video.dataset.Dataset;
import dev.stoker.video.dataset.EpochSampler;
import dev.stoker.video.dataset.SamplerState;
import dev.stoker.video.loader.internal.DemuxFactory;
import dev.stoker.video.loader.internal.EpochOrder;
import dev.stoker.video.loader.internal.FetchFactory;
import dev.stoker.video.loader.internal.FetchedVideo;
import dev.stoker.video.loader.internal.QuarantineGate;

/**
 * The {@link VideoLoader}'s stages up to demux, and the clip planning that follows, for loaders that
 * decode elsewhere (stoker-gpu's NVDEC loader): the same seeded epoch order, the same fetch and demux
 * stages (so the same clip starts), the same crop seeds and the same resume states, so that a clip
 * decoded on a GPU is the clip the CPU loader would have decoded for that video in that epoch.
 */
public final class LoaderFront {

    private LoaderFront() {
    }

    /** A fresh start: the sampler for {@code options} over {@code dataset}, at its first state. */
    public static ResumeTracker start(Dataset dataset, LoaderOptions options) {
        EpochSampler sampler = EpochSampler.create(EpochOrder.groups(dataset), options.sampling().seed(), options.sampling().shuffle(),
                options.sampling().sampler());
        return new ResumeTracker(sampler, sampler.start());
    }

    /**
     * Where a loader that gave {@code state} stood.
     *
     * @throws IllegalArgumentException if the dataset or the sampling settings differ from the state's
     */
    public static ResumeTracker resume(Dataset dataset, LoaderOptions options, SamplerState state) {
        EpochSampler.requireSameSettings(state, options.sampling().seed(), options.sampling().shuffle(), options.sampling().sampler());
        return new ResumeTracker(EpochSampler.resume(EpochOrder.groups(dataset), state), state);
    }

    /**
     * Source → fetch → demux from {@code from}'s state on, with {@code options}' failure budget on each stage:
     * the demuxed videos with their clip starts, in the sampler's order. The caller adds its decode and
     * collate stages and the pipeline config (stage names {@code fetch} and {@code demux}).
     */
    public static PipelineBuilder<OpenedVideo> demuxed(Dataset dataset, LoaderOptions options, ResumeTracker from) {
        return demux(fetched(dataset, options, from), options);
    }

    /** Source → fetch (with {@code options}' fetch hook, if any). */
    static PipelineBuilder<FetchedVideo> fetched(Dataset dataset, LoaderOptions options, ResumeTracker from) {
        return fetched(dataset, options, from, null);
    }

    /** Source → fetch, the source skipping the videos {@code gate} (nullable) holds quarantined. */
    static PipelineBuilder<FetchedVideo> fetched(Dataset dataset, LoaderOptions options, ResumeTracker from,
                                                 QuarantineGate gate) {
        FailureBudget budget = options.failureBudget();
        return Pipeline.fromEpochs(new EpochOrder(dataset, from.sampler(), from.start(), options.sampling().epochs(), gate))
                .map("fetch", FetchFactory.class, options.toJson(), s -> s.failureBudget(budget));
    }

    /**
     * {@code fetched} → demux. FFmpeg starts warming up here ({@link FfmpegNatives}): its first use costs about
     * 0.3 s of class initialisation, which then overlaps the rest of the pipeline's setup and the first fetches
     * instead of delaying the first demux.
     */
    static PipelineBuilder<OpenedVideo> demux(PipelineBuilder<FetchedVideo> fetched, LoaderOptions options) {
        FfmpegNatives.warmUpInBackground();
        FailureBudget budget = options.failureBudget();
        return fetched.map("demux", DemuxFactory.class, options.toJson(), s -> s.failureBudget(budget));
    }

    /**
     * The resize of clip {@code clip} of {@code task}'s video (its index among the clip starts demux gave,
     * which skip the clips a resumed run delivered before).
     */
    public static Resize resize(LoaderOptions options, VideoTask task, int clip) {
        return options.resize(cropSeed(options, task.epoch(), task.index(), task.firstClip() + clip));
    }

    /**
     * The random-crop seed of clip {@code clipOrdinal} (among its video's clips that epoch, from 0) of the video
     * at {@code videoIndex} in the dataset: a pure function of the loader's seed, the epoch, the video and the
     * clip, which every loader uses, so that a clip read from shards (whose samples keep their source's index)
     * is cropped as the video loader crops it from the file.
     */
    public static long cropSeed(LoaderOptions options, int epoch, int videoIndex, int clipOrdinal) {
        return options.sampling().seed() * 0x9E3779B97F4A7C15L + epoch * 1_000_003L + videoIndex * 31L + clipOrdinal;
    }

    /**
     * The resume state once clip {@code clip} of {@code clipsOfSample} clips of the sample at
     * {@code position} in {@code epoch} was delivered.
     */
    public static SamplerState stateAfter(EpochSampler sampler, int epoch, int position, int clip, int clipsOfSample) {
        return clip + 1 < clipsOfSample
                ? sampler.state(epoch, position, clip + 1)
                : sampler.state(epoch, position + 1, 0);
    }
}
