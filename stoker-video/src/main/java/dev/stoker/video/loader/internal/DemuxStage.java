package dev.stoker.video.loader.internal;

import dev.stoker.loader.ClipWindow;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.KeyframeIndex;
import dev.stoker.loader.clip.VideoInfo;
import dev.stoker.loader.dataset.ClipSampler;
import dev.stoker.loader.dataset.ClipStartBudget;
import dev.stoker.video.FailureReason;
import dev.stoker.video.Video;
import dev.stoker.video.VideoException;
import java.util.Arrays;
import java.util.function.Function;

/**
 * Opens the container from memory (or, for a folder of images, the frames its fetch read), indexes the video
 * stream's packets (and so its keyframes), and samples where this epoch's clips start, which needs the duration only the index knows (and, under a decode
 * budget, the keyframes: {@link ClipStartBudget}).
 */
public final class DemuxStage implements Function<FetchedVideo, OpenedVideo> {
    private final LoaderOptions options;
    private final ClipSampler sampler;

    DemuxStage(LoaderOptions options) {
        this.options = options;
        this.sampler = options.clipSampler();
    }

    @Override
    public OpenedVideo apply(FetchedVideo fetched) {
        VideoTask task = fetched.task();
        if (fetched.folder() != null) {
            // A folder of images: its fetch drew the starts to know which frames to read.
            return new OpenedVideo(task, fetched.folder().video(task.entry().path().toString(), fetched.bytes(),
                    options.clip().frameFolderFps()), fetched.folder().clipStarts());
        }
        ClipWindow window = options.clip().window();
        // A window's clip needs the frames up to its end only: the rest of the stream is not indexed (as SPDL's
        // example demuxes only the span it decodes).
        Video video = window == null ? Video.open(task.entry().path().toString(), fetched.bytes())
                : Video.openFirstSeconds(task.entry().path().toString(), fetched.bytes(),
                        task.entry().startSeconds().orElse(0) + window.toSeconds());
        try {
            return new OpenedVideo(task, video, clipStarts(options, sampler, task, video));
        } catch (RuntimeException e) {
            video.close();
            throw e;
        }
    }

    /**
     * Where {@code task}'s clips start in {@code video} this epoch, after its spatial crops, less those a resumed run
     * delivered before its state was taken.
     */
    static double[] clipStarts(LoaderOptions options, ClipSampler sampler, VideoTask task, Video video) {
        VideoInfo info = video.info();
        requireFramesInRange(task, video);
        double clipSeconds = options.clip().seconds(info.framesPerSecond());
        int budget = options.clip().startBudget();
        double[] starts = budget == ClipStartBudget.NONE
                ? sampler.clipStarts(task.entry(), info.durationSeconds(), clipSeconds, task.epoch(), task.index())
                : ClipStartBudget.draw(sampler, task.entry(), video, info.durationSeconds(), clipSeconds,
                        task.epoch(), task.index(), budget).startsSeconds();
        starts = options.size().cropsOf(starts);
        if (task.firstClip() > 0) {
            // Resumed inside this video: its first clips were delivered before the state was taken.
            starts = Arrays.copyOfRange(starts, Math.min(task.firstClip(), starts.length), starts.length);
        }
        return starts;
    }

    /**
     * Fails the sample when its entry's range holds no frame of the video (a range past the video's end): clamped, it
     * would give clips of the video's last frames, under a label that names something else. Ingest refuses the same
     * entry with the same reason.
     */
    private static void requireFramesInRange(VideoTask task, Video video) {
        ClipSpec.Bounds range = VideoFront.range(task.entry());
        if (range.whole()) {
            return;
        }
        int first = KeyframeIndex.firstAtOrAfter(video, range.fromSeconds());
        int end = Double.isInfinite(range.toSeconds()) ? video.frameCount()
                : KeyframeIndex.firstAtOrAfter(video, range.toSeconds());
        if (end <= first) {
            VideoInfo info = video.info();
            throw new VideoException(info.path(), VideoException.Operation.SELECT_RANGE, FailureReason.OUT_OF_RANGE,
                    "the manifest's range [" + range.fromSeconds() + ", " + range.toSeconds() + ") s holds no frame; "
                            + "the video has " + video.frameCount() + " frames over "
                            + String.format("%.3f", info.durationSeconds()) + " s");
        }
    }
}
