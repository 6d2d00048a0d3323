package dev.stoker.loader;

import dev.stoker.loader.LoaderOptions.Batching;
import dev.stoker.loader.LoaderOptions.Clip;
import dev.stoker.loader.LoaderOptions.ClipStarts;
import dev.stoker.loader.LoaderOptions.Decode;
import dev.stoker.loader.LoaderOptions.Placement;
import dev.stoker.loader.LoaderOptions.Sampling;
import dev.stoker.loader.LoaderOptions.Size;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.SamplerOptions;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.PipelineConfig;
import java.util.Objects;

/**
 * Builds {@link LoaderOptions}: sets one group or value at a time, from the defaults or from given options;
 * {@link #build()} checks the whole.
 */
public final class LoaderOptionsBuilder {
    private Clip clip;
    private Size size;
    private Batching batch;
    private Sampling sampling;
    private Decode decode;
    private Placement placement;
    private FailureBudget failureBudget;
    private PipelineConfig config;
    private Class<? extends FetchHook> fetchHook;
    private java.nio.file.Path quarantine;

    LoaderOptionsBuilder(LoaderOptions o) {
        clip = o.clip();
        size = o.size();
        batch = o.batch();
        sampling = o.sampling();
        decode = o.decode();
        placement = o.placement();
        failureBudget = o.failureBudget();
        config = o.config();
        fetchHook = o.fetchHook();
        quarantine = o.quarantine();
    }

    public LoaderOptionsBuilder clip(Clip clip) {
        this.clip = clip;
        return this;
    }

    /** {@code frames} frames, {@code strideFrames} source frames apart. */
    public LoaderOptionsBuilder clip(int frames, int strideFrames) {
        return clip(new Clip(frames, strideFrames, 0, clip.pastEnd(), clip.starts(), clip.clipsPerVideo(),
                clip.windowStepSeconds(), clip.maxLeadFrames(), clip.window(), clip.frameFolderFps()));
    }

    /** {@code frames} frames resampled to {@code fps} by timestamp. */
    public LoaderOptionsBuilder resampledClip(int frames, double fps) {
        return clip(new Clip(frames, clip.strideFrames(), fps, clip.pastEnd(), clip.starts(), clip.clipsPerVideo(),
                clip.windowStepSeconds(), clip.maxLeadFrames(), clip.window(), clip.frameFolderFps()));
    }

    public LoaderOptionsBuilder pastEnd(PastEndPolicy pastEnd) {
        return clip(new Clip(clip.frames(), clip.strideFrames(), clip.resampleFps(), pastEnd, clip.starts(),
                clip.clipsPerVideo(), clip.windowStepSeconds(), clip.maxLeadFrames(), clip.window(), clip.frameFolderFps()));
    }

    /** How clip starts are chosen, how many per video, the step between windows. */
    public LoaderOptionsBuilder clipStarts(ClipStarts starts, int clipsPerVideo, double windowStepSeconds) {
        return clip(new Clip(clip.frames(), clip.strideFrames(), clip.resampleFps(), clip.pastEnd(), starts,
                clipsPerVideo, windowStepSeconds, clip.maxLeadFrames(), clip.window(), clip.frameFolderFps()));
    }

    /**
     * A decode budget: clips start only at frames at most {@code maxLeadFrames} frames after the keyframe decoding
     * starts at (0: on keyframes); {@link dev.stoker.loader.dataset.ClipStartBudget#NONE} for anywhere.
     */
    public LoaderOptionsBuilder maxLeadFrames(int maxLeadFrames) {
        return clip(new Clip(clip.frames(), clip.strideFrames(), clip.resampleFps(), clip.pastEnd(), clip.starts(),
                clip.clipsPerVideo(), clip.windowStepSeconds(), maxLeadFrames, clip.window(), clip.frameFolderFps()));
    }

    /** Frames a second of videos stored as folders of images (which carry no timestamps). */
    public LoaderOptionsBuilder frameFolderFps(double fps) {
        return clip(clip.withFrameFolderFps(fps));
    }

    /** One clip a video, of the frames shown in {@code window} picked by linspace; null: sampled starts. */
    public LoaderOptionsBuilder clipWindow(ClipWindow window) {
        return clip(new Clip(clip.frames(), clip.strideFrames(), clip.resampleFps(), clip.pastEnd(), clip.starts(),
                clip.clipsPerVideo(), clip.windowStepSeconds(), clip.maxLeadFrames(), window, clip.frameFolderFps()));
    }

    public LoaderOptionsBuilder size(Size size) {
        this.size = size;
        return this;
    }

    /** The output size, without augmentations ({@link #augment} adds them). */
    public LoaderOptionsBuilder size(int width, int height, Resize.Mode mode, int shortSide) {
        return size(new Size(width, height, mode, shortSide));
    }

    /**
     * Training augmentations on the current size, each clip's drawn from its seed: the short side jittered up to
     * {@code shortSideMax} (0: none) and, with {@code flip}, half the clips mirrored left to right.
     */
    public LoaderOptionsBuilder augment(int shortSideMax, boolean flip) {
        return size(new Size(size.width(), size.height(), size.mode(), size.shortSide(), shortSideMax, flip,
                size.areaMin(), size.spatialCrops()));
    }

    /**
     * Each clip delivered {@code crops} times, cut at places spread along the long side of the picture (test-time
     * views; the size's mode must be a centre crop): crop 0 at the left (the top of a portrait picture), the last at
     * the right.
     */
    public LoaderOptionsBuilder spatialCrops(int crops) {
        return size(new Size(size.width(), size.height(), size.mode(), size.shortSide(), size.shortSideMax(), size.flip(),
                size.areaMin(), crops));
    }

    public LoaderOptionsBuilder batch(Batching batch) {
        this.batch = batch;
        return this;
    }

    public LoaderOptionsBuilder batch(int size, boolean dropLast, BatchLayout layout) {
        return batch(new Batching(size, dropLast, layout, batch.budgetBytes()));
    }

    public LoaderOptionsBuilder batchBudget(long bytes) {
        return batch(new Batching(batch.size(), batch.dropLast(), batch.layout(), bytes));
    }

    public LoaderOptionsBuilder sampling(Sampling sampling) {
        this.sampling = sampling;
        return this;
    }

    public LoaderOptionsBuilder order(long seed, boolean shuffle, int epochs) {
        return sampling(new Sampling(seed, shuffle, epochs, sampling.windowGroups(), sampling.rank(),
                sampling.worldSize(), sampling.tail()));
    }

    /** The epoch layout beyond seed, shuffle and epochs: shuffle window, rank, world size, tail. */
    public LoaderOptionsBuilder sampler(SamplerOptions s) {
        return sampling(new Sampling(sampling.seed(), sampling.shuffle(), sampling.epochs(), s.windowGroups(),
                s.rank(), s.worldSize(), s.tail()));
    }

    /** This process loads the {@code rank}-th of {@code worldSize} equal parts of every epoch. */
    public LoaderOptionsBuilder rank(int rank, int worldSize) {
        return sampler(sampling.sampler().withRank(rank, worldSize));
    }

    public LoaderOptionsBuilder decode(Decode decode) {
        this.decode = decode;
        return this;
    }

    public LoaderOptionsBuilder decoder(int threads, boolean skipNonReferenceFrames) {
        return decode(new Decode(threads, skipNonReferenceFrames, decode.fusedConvert(), decode.device(),
                decode.nvdecSessions()));
    }

    public LoaderOptionsBuilder fusedConvert(boolean fused) {
        return decode(new Decode(decode.threads(), decode.skipNonReferenceFrames(), fused, decode.device(),
                decode.nvdecSessions()));
    }

    /** Where clips are decoded, and the NVDEC sessions (0: one per engine). */
    public LoaderOptionsBuilder decodeOn(DecodeDevice device, int nvdecSessions) {
        return decode(new Decode(decode.threads(), decode.skipNonReferenceFrames(), decode.fusedConvert(), device,
                nvdecSessions));
    }

    public LoaderOptionsBuilder placement(Placement placement) {
        this.placement = placement;
        return this;
    }

    /** Runs the stages up to {@code stage} in a child JVM; null runs every stage in this process. */
    public LoaderOptionsBuilder splitAfter(VideoStage stage) {
        return placement(new Placement(stage));
    }

    public LoaderOptionsBuilder failureBudget(FailureBudget budget) {
        this.failureBudget = budget;
        return this;
    }

    /** Lays {@code more} over the pipeline config so far (stage concurrency, queues, sink). */
    public LoaderOptionsBuilder config(PipelineConfig more) {
        this.config = config.overriddenBy(Objects.requireNonNull(more, "config"));
        return this;
    }

    /**
     * Runs a new {@code hook} (its public no-argument constructor) in the fetch stage, just before each video
     * file is read; null for none.
     */
    public LoaderOptionsBuilder fetchHook(Class<? extends FetchHook> hook) {
        this.fetchHook = hook;
        return this;
    }

    /** Reads and appends the quarantine in {@code file} (JSONL, see {@code Quarantine}); null: this run's only. */
    public LoaderOptionsBuilder quarantine(java.nio.file.Path file) {
        this.quarantine = file;
        return this;
    }

    public LoaderOptions build() {
        return new LoaderOptions(clip, size, batch, sampling, decode, placement, failureBudget, config, fetchHook,
                quarantine);
    }
}
