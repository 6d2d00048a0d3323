package dev.stoker.store.loader;

import dev.stoker.store.SampleInfo;
import dev.stoker.store.ShardDataset;
import dev.stoker.video.ClipSpec;
import dev.stoker.video.dataset.ClipSampler;
import dev.stoker.video.dataset.SampleDraw;
import dev.stoker.video.dataset.VideoEntry;
import dev.stoker.video.loader.LoaderFront;
import dev.stoker.video.loader.LoaderOptions;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a sample's clips start and how they are cropped: VideoLoader's functions of (seed, epoch, source
 * index), so a sample gets the clips its source video gets from VideoLoader in the same epoch.
 */
record ClipPlanner(ShardDataset dataset, LoaderOptions options, ClipSampler sampler) {

    ClipPlanner(ShardDataset dataset, LoaderOptions options) {
        this(dataset, options, options.clipSampler());
    }

    /** Every clip start of the sample in {@code epoch}, ascending. */
    double[] starts(SampleInfo s, int epoch) {
        VideoEntry entry = new VideoEntry(s.sourcePath(), s.label(), s.className());
        return sampler.clipStarts(entry, s.durationSeconds(), options.clip().seconds(s.framesPerSecond()), epoch,
                s.sourceIndex());
    }

    /** The clips a draw reads (for reading ahead). */
    List<ClipSpec> clipsOf(SampleDraw draw) {
        double[] starts = starts(dataset.sample(draw.sampleIndex()), draw.epoch());
        List<ClipSpec> specs = new ArrayList<>(starts.length);
        for (double start : starts) {
            specs.add(options.clip().at(start));
        }
        return specs;
    }

    /** The crop seed of clip {@code clip} (its ordinal among the sample's clips this epoch): the video loader's. */
    long cropSeed(SampleTask task, int clip) {
        return LoaderFront.cropSeed(options, task.epoch(), task.sample().sourceIndex(), clip);
    }
}
