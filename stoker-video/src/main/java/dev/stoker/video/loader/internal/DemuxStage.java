package dev.stoker.video.loader.internal;

import dev.stoker.loader.ClipWindow;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.clip.VideoInfo;
import dev.stoker.loader.dataset.ClipSampler;
import dev.stoker.loader.dataset.ClipStartBudget;
import dev.stoker.video.Video;
import java.util.function.Function;

/**
 * Opens the container from memory, indexes the video stream's packets (and so its keyframes), and
 * samples where this epoch's clips start, which needs the duration only the index knows (and, under a decode
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
        ClipWindow window = options.clip().window();
        // A window's clip needs the frames up to its end only: the rest of the stream is not indexed (as SPDL's
        // example demuxes only the span it decodes).
        Video video = window == null ? Video.open(task.entry().path().toString(), fetched.bytes())
                : Video.openFirstSeconds(task.entry().path().toString(), fetched.bytes(),
                        task.entry().startSeconds().orElse(0) + window.toSeconds());
        try {
            VideoInfo info = video.info();
            double clipSeconds = options.clip().seconds(info.framesPerSecond());
            int budget = options.clip().startBudget();
            double[] starts = budget == ClipStartBudget.NONE
                    ? sampler.clipStarts(task.entry(), info.durationSeconds(), clipSeconds, task.epoch(), task.index())
                    : ClipStartBudget.draw(sampler, task.entry(), video, info.durationSeconds(), clipSeconds,
                            task.epoch(), task.index(), budget).startsSeconds();
            starts = options.size().cropsOf(starts);
            if (task.firstClip() > 0) {
                // Resumed inside this video: its first clips were delivered before the state was taken.
                starts = java.util.Arrays.copyOfRange(starts, Math.min(task.firstClip(), starts.length), starts.length);
            }
            return new OpenedVideo(task, video, starts);
        } catch (RuntimeException e) {
            video.close();
            throw e;
        }
    }
}
