package dev.stoker.loader.internal;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.ResumeTracker;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.EpochSampler;
import dev.stoker.loader.dataset.internal.SampleDraw;
import dev.stoker.loader.dataset.internal.SampleGroups;
import dev.stoker.loader.dataset.internal.SplitMix;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.pipeline.EpochSource;
import java.util.ArrayList;
import java.util.List;

/**
 * What every loader of a video dataset shares so that they deliver the same clips: the seeded epoch order over
 * the dataset, the resume states, and the framing seed of a clip. The video loader, the NVDEC loader and the
 * shard loader (whose samples keep their source video's index) all take them from here, so that a clip decoded on
 * a GPU or read from a shard is the clip the CPU loader would have decoded for that video in that epoch.
 */
public final class LoaderFront {
    /** Sets the framing seeds apart from the sampler's draws of the same seed ({@code EpochSampler}'s streams). */
    private static final long CROP_STREAM = 0x63726f70L;   // "crop"

    private LoaderFront() {
    }

    /** The dataset as the sampler sees it: the entries of one file form a group (its clips stay together). */
    public static SampleGroups groups(Dataset dataset) {
        return SampleGroups.byKey(dataset.entries().stream().map(VideoEntry::path).toList());
    }

    /** A fresh start: the sampler for {@code options} over {@code dataset}, at its first state. */
    public static ResumeTracker start(Dataset dataset, LoaderOptions options) {
        EpochSampler sampler = EpochSampler.create(groups(dataset), options.sampling().seed(), options.sampling().shuffle(),
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
        return new ResumeTracker(EpochSampler.resume(groups(dataset), state), state);
    }

    /**
     * The framing seed of clip {@code clipOrdinal} (among its video's clips that epoch, from 0) of the video at
     * {@code videoIndex} in the dataset (its random crop's position, jittered short side and mirror:
     * {@code Resize.framing()}): a pure function of the loader's seed, the epoch, the video and the clip, which every
     * loader uses, so that a clip read from shards (whose samples keep their source's index) is framed as the video
     * loader frames it from the file.
     */
    public static long cropSeed(LoaderOptions options, int epoch, int videoIndex, int clipOrdinal) {
        // Mixed step by step, so that no two (epoch, video, clip) share a seed (a sum such as video * 31 + clip gave the
        // 31st clip of a video the next video's first framing), and apart from the sampler's streams by its own.
        return SplitMix.mix(SplitMix.mix(SplitMix.mix(SplitMix.mix(options.sampling().seed(), CROP_STREAM), epoch),
                videoIndex), clipOrdinal);
    }

    /**
     * The resize of clip {@code clipOrdinal} of the video at {@code videoIndex} in {@code epoch}: its framing drawn
     * from {@link #cropSeed}, its spatial crop (with {@code size.spatialCrops}) from its ordinal.
     */
    public static Resize resize(LoaderOptions options, int epoch, int videoIndex, int clipOrdinal) {
        return options.size().resize(cropSeed(options, epoch, videoIndex, startOrdinal(options, clipOrdinal)), clipOrdinal);
    }

    /**
     * The ordinal of the clip start that clip {@code clipOrdinal} is cut from: the seeds are the start's, so that a
     * start's spatial crops share its frames, its jittered scale and its mirror, and differ only in where they cut.
     */
    private static int startOrdinal(LoaderOptions options, int clipOrdinal) {
        return clipOrdinal / options.size().spatialCrops();
    }

    /**
     * Clip {@code clipOrdinal} of the video at {@code videoIndex} in {@code epoch}, starting at {@code startSeconds}:
     * its frames as {@code clip} options select them, all of them within {@code range} (a manifest entry's; segments
     * span to its end) and its random frames drawn from a seed that, like the crop's, is a pure function of (seed,
     * epoch, video, clip), so that shards, resumes and child JVMs pick the same frames.
     */
    public static ClipSpec clip(LoaderOptions options, int epoch, int videoIndex, int clipOrdinal, double startSeconds,
                                ClipSpec.Bounds range) {
        // Not the crop seed itself: the frame draws would then repeat the framing's draws.
        long seed = Long.rotateLeft(cropSeed(options, epoch, videoIndex, startOrdinal(options, clipOrdinal)), 29)
                ^ 0x5E6D_E275_C1A5_5EEDL;
        return options.clip().at(startSeconds, range.toSeconds(), seed).within(range);
    }

    /** A loader's task for one of the sampler's draws, whose sample it loads from clip {@code firstClip} on. */
    @FunctionalInterface
    public interface TaskOfDraw<T> {
        T task(SampleDraw draw, int firstClip);
    }

    /**
     * The sampler's draws from {@code start} on as a loader's tasks, an epoch's listed when the pipeline asks for it
     * (its epoch k is the sampler's {@code start.epoch() + k}; none from {@code endEpoch} on, -1: endless). Every task
     * starts at clip 0 but a resumed run's first, which starts past the clips of its sample delivered before the run
     * stopped ({@link #stateAfter}'s count), so that no clip is delivered twice.
     */
    public static <T> EpochSource<T> tasks(EpochSampler sampler, SamplerState start, int endEpoch, TaskOfDraw<T> task) {
        EpochSource<SampleDraw> draws = sampler.source(start, endEpoch);
        return epoch -> {
            Iterable<? extends SampleDraw> epochDraws = draws.epoch(epoch);
            if (epochDraws == null) {
                return null;
            }
            List<T> tasks = new ArrayList<>();
            for (SampleDraw d : epochDraws) {
                tasks.add(task.task(d, epoch == 0 && d.position() == start.position() ? start.clipsDelivered() : 0));
            }
            return tasks;
        };
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
