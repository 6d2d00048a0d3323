package dev.stoker.store.loader;

import dev.stoker.loader.internal.LoaderFront;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.ClipSampler;
import dev.stoker.loader.dataset.ClipStartBudget;
import dev.stoker.loader.dataset.internal.ClipStartDraw;
import dev.stoker.loader.dataset.internal.SampleDraw;
import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.store.internal.SampleInfo;
import dev.stoker.store.ShardDataset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Where a sample's clips start and how they are cropped: VideoLoader's functions of (seed, epoch, source
 * index), so a sample gets the clips its source video gets from VideoLoader in the same epoch. Under a decode
 * budget ({@code maxLeadFrames}) starts are drawn from the stored frames with the source's keyframes, which the
 * record lists ({@link ShardDataset#sourceKeyframes}): the same frames the source video's own index gives.
 */
record ClipPlanner(ShardDataset dataset, LoaderOptions options, ClipSampler sampler) {

    ClipPlanner(ShardDataset dataset, LoaderOptions options) {
        this(dataset, options, options.clipSampler());
    }

    /** Clip starts of a sample in an epoch, and each one's decode lead in the source (-1 each without a budget). */
    record Starts(double[] seconds, int[] leadFrames) {
    }

    /** Every clip start of the sample in {@code epoch}, ascending. */
    double[] starts(SampleInfo s, int epoch) {
        return plan(s, epoch).seconds();
    }

    /** Every clip start of the sample in {@code epoch}, ascending, with its decode lead in the source. */
    Starts plan(SampleInfo s, int epoch) {
        VideoEntry entry = new VideoEntry(s.sourcePath(), s.label(), s.className());
        double clipSeconds = options.clip().seconds(s.framesPerSecond());
        int budget = options.clip().startBudget();
        if (budget == ClipStartBudget.NONE) {
            double[] starts = sampler.clipStarts(entry, s.durationSeconds(), clipSeconds, epoch, s.sourceIndex());
            int[] unknown = new int[starts.length];
            Arrays.fill(unknown, -1);
            return new Starts(options.size().cropsOf(starts), options.size().cropsOf(unknown));
        }
        ClipStartDraw draw = ClipStartBudget.draw(sampler, entry, dataset.sourceKeyframes(s.index()), s.durationSeconds(), clipSeconds,
                epoch, s.sourceIndex(), budget);
        return new Starts(options.size().cropsOf(draw.startsSeconds()), options.size().cropsOf(draw.leadFrames()));
    }

    /** The clips a draw reads (for reading ahead): each as the loader will read it, random segments' frames included. */
    List<ClipSpec> clipsOf(SampleDraw draw) {
        SampleInfo sample = dataset.sample(draw.sampleIndex());
        double[] starts = starts(sample, draw.epoch());
        int crops = options.size().spatialCrops();   // a start's crops read the same frames: its first stands for all
        List<ClipSpec> specs = new ArrayList<>(starts.length / crops);
        for (int clip = 0; clip < starts.length; clip += crops) {
            specs.add(LoaderFront.clip(options, draw.epoch(), sample.sourceIndex(), clip, starts[clip],
                    ClipSpec.Bounds.WHOLE));
        }
        return specs;
    }

    /** The frames of clip {@code clip} (its ordinal among the sample's clips this epoch), from {@code start}: the video loader's. */
    ClipSpec clip(SampleTask task, int clip, double start) {
        // A shard holds its source's range alone (ingest cut it): its stored frames are the bounds the video loader
        // gives a ranged entry's clips.
        return LoaderFront.clip(options, task.epoch(), task.sample().sourceIndex(), clip, start, ClipSpec.Bounds.WHOLE);
    }

    /** The resize of clip {@code clip} (its ordinal among the sample's clips this epoch): the video loader's. */
    Resize resize(SampleTask task, int clip) {
        return LoaderFront.resize(options, task.epoch(), task.sample().sourceIndex(), clip);
    }
}
