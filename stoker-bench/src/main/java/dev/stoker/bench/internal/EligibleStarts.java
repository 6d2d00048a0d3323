package dev.stoker.bench.internal;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.dataset.ClipSampler;
import dev.stoker.loader.dataset.ClipStartBudget;
import dev.stoker.loader.dataset.internal.ClipStartDraw;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.video.Video;
import dev.stoker.video.VideoException;

/**
 * How many places a clip can start at in a dataset's videos, and how many of them a decode budget leaves
 * ({@code --max-lead-frames}): the diversity of clips a user gives up for decoding less. A property of the videos
 * and the options, read from the demuxers' indexes (no decoding).
 *
 * @param videos               videos indexed
 * @param fittingStartsPerVideo mean frames a whole clip can start at
 * @param eligibleStartsPerVideo mean of those the budget leaves (all of them without one; 1 for a clip window)
 * @param eligibleShare        eligible starts over fitting starts, over all the videos
 * @param videosWithoutEligible videos with no start within the budget (their clips start at their cheapest)
 * @param unreadable           videos that could not be indexed (left out)
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record EligibleStarts(int videos, double fittingStartsPerVideo, double eligibleStartsPerVideo,
                             double eligibleShare, int videosWithoutEligible, int unreadable) {

    /** Indexes up to {@code maxVideos} videos of {@code dataset}, evenly spread over it. */
    public static EligibleStarts scan(Dataset dataset, LoaderOptions options, int maxVideos) {
        LoaderOptions.Clip clip = options.clip();
        ClipSampler sampler = options.clipSampler();
        int n = Math.min(maxVideos, dataset.size());
        long fitting = 0;
        long eligible = 0;
        int without = 0;
        int indexed = 0;
        int unreadable = 0;
        for (int i = 0; i < n; i++) {
            int index = (int) ((long) i * dataset.size() / n);
            VideoEntry entry = dataset.get(index);
            try (Video video = Video.open(entry.path(), clip.frameFolderFps())) {
                double clipSeconds = clip.seconds(video.info().framesPerSecond());
                double seconds = video.info().durationSeconds();
                if (clip.window() != null || clip.starts().segments()) {
                    // One clip a video, which starts where its window or the video does: a budget picks its frames.
                    fitting += 1;
                    eligible += 1;
                } else if (clip.starts() == LoaderOptions.ClipStarts.WINDOWS) {
                    int windows = sampler.clipStarts(entry, seconds, clipSeconds, 0, index).length;
                    fitting += windows;
                    eligible += windows;
                } else {
                    // Without a budget every fitting frame is eligible: a budget no lead exceeds counts them.
                    int budget = clip.maxLeadFrames() == ClipStartBudget.NONE ? Integer.MAX_VALUE : clip.maxLeadFrames();
                    ClipStartDraw draw = ClipStartBudget.draw(sampler, entry, video, seconds, clipSeconds, 0, index, budget);
                    fitting += draw.fittingStarts();
                    eligible += draw.eligibleStarts();
                    without += draw.fallback() ? 1 : 0;
                }
                indexed++;
            } catch (VideoException e) {
                unreadable++; // the loader counts it as a failure; it has no starts to count here
            }
        }
        return new EligibleStarts(indexed, indexed == 0 ? Double.NaN : (double) fitting / indexed,
                indexed == 0 ? Double.NaN : (double) eligible / indexed, fitting == 0 ? Double.NaN : (double) eligible / fitting,
                without, unreadable);
    }
}
