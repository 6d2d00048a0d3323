package dev.stoker.video.loader;

import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.video.ClipSpec;
import dev.stoker.video.PastEndPolicy;
import dev.stoker.video.Resize;
import dev.stoker.video.batch.BatchLayout;
import dev.stoker.video.dataset.EpochSampler;
import dev.stoker.video.dataset.SamplerOptions;
import java.util.Objects;

/**
 * What a {@link VideoLoader} produces and how: clip geometry, sampling, batching and the pipeline's
 * knobs. Build with {@link #defaults()} and the {@code with…} methods.
 *
 * @param frames          frames per clip (T)
 * @param strideFrames    distance between sampled frames, in source frames
 * @param resampleFps     when {@code > 0}, clips are {@code frames} frames resampled to this frame rate
 *                        by timestamp instead of strided
 * @param width           output width
 * @param height          output height
 * @param resizeMode      how frames become width × height (short-side resize then centre or random crop,
 *                        or a direct stretch)
 * @param shortSide       short side before cropping; {@code 0} means max(width, height)
 * @param pastEnd         what a clip running past the video's end does
 * @param batchSize       clips per batch (N)
 * @param dropLast        drop the partial batch at the end of each epoch
 * @param layout          batch memory layout
 * @param clipsPerVideo   clips drawn from each video per epoch
 * @param sampling        random, uniform or windows
 * @param windowStepSeconds step between windows for {@link Sampling#WINDOWS}
 * @param seed            seeds the epoch order, the clip starts and random crops
 * @param shuffle         visit videos in a seeded random order each epoch
 * @param epochs          epochs to run, {@code -1} for endless
 * @param decoderThreads  FFmpeg threads per decoder (1: parallelism comes from stage concurrency)
 * @param skipNonReferenceFrames skip decoding frames that are neither output nor referenced
 * @param fusedConvert    convert frames inside the decode stage instead of in a convert stage of its
 *                        own (holds no decoded pictures between stages; one less hand-off)
 * @param batchBudgetBytes bytes of batch memory the loader may hold (0: enough for the sink, the
 *                        consumer's batch and the collators)
 * @param failureBudget   failed samples a stage may skip before the loader gives up
 * @param config          per-stage concurrency and queue settings, laid over the defaults
 * @param sampler         shuffle window (in files: entries of one file form a group), rank and world size
 *                        for data-parallel training, and the tail policy; see {@link EpochSampler}
 * @param splitAfter      run the stages up to this one (any of {@link VideoLoader#STAGES}) in a child JVM
 *                        (process isolation: a native crash there does not end training); null: all in-process.
 *                        After {@code "decode"}, decode converts (as with {@code fusedConvert}); with
 *                        {@code fusedConvert}, {@code "convert"} means after decode
 * @param fetchHook       runs in the fetch stage just before each file is read (evicting its pages for a
 *                        cold-cache benchmark, say); a class, so that it runs in a child JVM too; null: none
 */
public record LoaderOptions(int frames, int strideFrames, double resampleFps, int width, int height,
                            Resize.Mode resizeMode, int shortSide, PastEndPolicy pastEnd, int batchSize,
                            boolean dropLast, BatchLayout layout, int clipsPerVideo, Sampling sampling,
                            double windowStepSeconds, long seed, boolean shuffle, int epochs, int decoderThreads,
                            boolean skipNonReferenceFrames, boolean fusedConvert, long batchBudgetBytes,
                            FailureBudget failureBudget, PipelineConfig config, SamplerOptions sampler,
                            String splitAfter, Class<? extends FetchHook> fetchHook) {

    /** How clip starts are chosen in a video. */
    public enum Sampling { RANDOM, UNIFORM, WINDOWS }

    public LoaderOptions {
        positive("frames", frames);
        positive("strideFrames", strideFrames);
        positive("width", width);
        positive("height", height);
        positive("batchSize", batchSize);
        positive("clipsPerVideo", clipsPerVideo);
        positive("decoderThreads", decoderThreads);
        if (shortSide < 0) {
            throw new IllegalArgumentException("shortSide: " + shortSide + " (expected: 0 for automatic, or 1+)");
        }
        if (resampleFps < 0 || Double.isNaN(resampleFps)) {
            throw new IllegalArgumentException("resampleFps: " + resampleFps + " (expected: 0 for strided clips, or > 0)");
        }
        if (epochs == 0 || epochs < -1) {
            throw new IllegalArgumentException("epochs: " + epochs + " (expected: 1+, or -1 for endless)");
        }
        if (sampling == Sampling.WINDOWS && !(windowStepSeconds > 0)) {
            throw new IllegalArgumentException("windowStepSeconds: " + windowStepSeconds + " (expected: > 0 for window sampling)");
        }
        if (batchBudgetBytes < 0) {
            throw new IllegalArgumentException("batchBudgetBytes: " + batchBudgetBytes + " (expected: 0 for automatic, or 1+)");
        }
        Objects.requireNonNull(resizeMode, "resizeMode");
        Objects.requireNonNull(pastEnd, "pastEnd");
        Objects.requireNonNull(layout, "layout");
        Objects.requireNonNull(sampling, "sampling");
        Objects.requireNonNull(failureBudget, "failureBudget");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(sampler, "sampler");
        if (splitAfter != null && !SPLITTABLE_STAGES.contains(splitAfter)) {
            throw new IllegalArgumentException("splitAfter: '" + splitAfter + "' (expected: one of " + SPLITTABLE_STAGES
                    + ", or null to run every stage in this process)");
        }
    }

    /** Stages {@link #splitAfter} can name: every stage, each with a codec for its outputs. */
    public static final java.util.List<String> SPLITTABLE_STAGES = java.util.List.of("fetch", "demux", "decode",
            "convert", "batch", "collate");

    private static void positive(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: 1+)");
        }
    }

    /** 16 frames, stride 2, 112×112 centre crop of a 112 short side, batches of 8, one random clip per video, endless. */
    public static LoaderOptions defaults() {
        return new LoaderOptions(16, 2, 0, 112, 112, Resize.Mode.SHORT_SIDE_CENTER_CROP, 0, PastEndPolicy.SHIFT, 8,
                false, BatchLayout.NTHWC, 1, Sampling.RANDOM, 1.0, 0, true, -1, 1, true, false, 0,
                FailureBudget.rate(0.10, 50), PipelineConfig.EMPTY,
                SamplerOptions.defaults(), null, null);
    }

    /** The clip starting at {@code startSeconds}. */
    public ClipSpec clipAt(double startSeconds) {
        return resampleFps > 0
                ? ClipSpec.resampled(startSeconds, frames / resampleFps, resampleFps).withPastEnd(pastEnd)
                : ClipSpec.frames(startSeconds, frames, strideFrames).withPastEnd(pastEnd);
    }

    /** Seconds one clip spans in a video of {@code fps} frames per second. */
    public double clipSeconds(double fps) {
        if (resampleFps > 0) {
            return frames / resampleFps;
        }
        return fps > 0 ? ((frames - 1) * strideFrames + 1) / fps : 0;
    }

    /** The resize of the clip with the given random-crop seed. */
    public Resize resize(long cropSeed) {
        int side = shortSide > 0 ? shortSide : Math.max(width, height);
        return switch (resizeMode) {
            case SHORT_SIDE_CENTER_CROP -> Resize.centerCrop(side, width, height);
            case SHORT_SIDE_RANDOM_CROP -> Resize.randomCrop(side, width, height, cropSeed);
            case STRETCH -> Resize.stretch(width, height);
            case ORIGINAL -> throw new IllegalArgumentException("resizeMode: ORIGINAL (expected: a fixed output size for batching)");
        };
    }

    public LoaderOptions withClip(int frames, int strideFrames) {
        return new LoaderOptions(frames, strideFrames, 0, width, height, resizeMode, shortSide, pastEnd, batchSize,
                dropLast, layout, clipsPerVideo, sampling, windowStepSeconds, seed, shuffle, epochs, decoderThreads,
                skipNonReferenceFrames, fusedConvert, batchBudgetBytes, failureBudget, config, sampler, splitAfter, fetchHook);
    }

    public LoaderOptions withResampledClip(int frames, double fps) {
        return new LoaderOptions(frames, strideFrames, fps, width, height, resizeMode, shortSide, pastEnd, batchSize,
                dropLast, layout, clipsPerVideo, sampling, windowStepSeconds, seed, shuffle, epochs, decoderThreads,
                skipNonReferenceFrames, fusedConvert, batchBudgetBytes, failureBudget, config, sampler, splitAfter, fetchHook);
    }

    public LoaderOptions withSize(int width, int height, Resize.Mode mode, int shortSide) {
        return new LoaderOptions(frames, strideFrames, resampleFps, width, height, mode, shortSide, pastEnd, batchSize,
                dropLast, layout, clipsPerVideo, sampling, windowStepSeconds, seed, shuffle, epochs, decoderThreads,
                skipNonReferenceFrames, fusedConvert, batchBudgetBytes, failureBudget, config, sampler, splitAfter, fetchHook);
    }

    public LoaderOptions withBatch(int batchSize, boolean dropLast, BatchLayout layout) {
        return new LoaderOptions(frames, strideFrames, resampleFps, width, height, resizeMode, shortSide, pastEnd,
                batchSize, dropLast, layout, clipsPerVideo, sampling, windowStepSeconds, seed, shuffle, epochs,
                decoderThreads, skipNonReferenceFrames, fusedConvert, batchBudgetBytes, failureBudget, config, sampler, splitAfter, fetchHook);
    }

    public LoaderOptions withSampling(Sampling sampling, int clipsPerVideo, double windowStepSeconds) {
        return new LoaderOptions(frames, strideFrames, resampleFps, width, height, resizeMode, shortSide, pastEnd,
                batchSize, dropLast, layout, clipsPerVideo, sampling, windowStepSeconds, seed, shuffle, epochs,
                decoderThreads, skipNonReferenceFrames, fusedConvert, batchBudgetBytes, failureBudget, config, sampler, splitAfter, fetchHook);
    }

    public LoaderOptions withOrder(long seed, boolean shuffle, int epochs) {
        return new LoaderOptions(frames, strideFrames, resampleFps, width, height, resizeMode, shortSide, pastEnd,
                batchSize, dropLast, layout, clipsPerVideo, sampling, windowStepSeconds, seed, shuffle, epochs,
                decoderThreads, skipNonReferenceFrames, fusedConvert, batchBudgetBytes, failureBudget, config, sampler, splitAfter, fetchHook);
    }

    public LoaderOptions withPastEnd(PastEndPolicy pastEnd) {
        return new LoaderOptions(frames, strideFrames, resampleFps, width, height, resizeMode, shortSide, pastEnd,
                batchSize, dropLast, layout, clipsPerVideo, sampling, windowStepSeconds, seed, shuffle, epochs,
                decoderThreads, skipNonReferenceFrames, fusedConvert, batchBudgetBytes, failureBudget, config, sampler, splitAfter, fetchHook);
    }

    public LoaderOptions withDecoder(int decoderThreads, boolean skipNonReferenceFrames) {
        return new LoaderOptions(frames, strideFrames, resampleFps, width, height, resizeMode, shortSide, pastEnd,
                batchSize, dropLast, layout, clipsPerVideo, sampling, windowStepSeconds, seed, shuffle, epochs,
                decoderThreads, skipNonReferenceFrames, fusedConvert, batchBudgetBytes, failureBudget, config, sampler, splitAfter, fetchHook);
    }

    public LoaderOptions withFusedConvert(boolean fusedConvert) {
        return new LoaderOptions(frames, strideFrames, resampleFps, width, height, resizeMode, shortSide, pastEnd,
                batchSize, dropLast, layout, clipsPerVideo, sampling, windowStepSeconds, seed, shuffle, epochs,
                decoderThreads, skipNonReferenceFrames, fusedConvert, batchBudgetBytes, failureBudget, config, sampler, splitAfter, fetchHook);
    }

    public LoaderOptions withFailureBudget(FailureBudget failureBudget) {
        return new LoaderOptions(frames, strideFrames, resampleFps, width, height, resizeMode, shortSide, pastEnd,
                batchSize, dropLast, layout, clipsPerVideo, sampling, windowStepSeconds, seed, shuffle, epochs,
                decoderThreads, skipNonReferenceFrames, fusedConvert, batchBudgetBytes, failureBudget, config, sampler, splitAfter, fetchHook);
    }

    public LoaderOptions withBatchBudget(long batchBudgetBytes) {
        return new LoaderOptions(frames, strideFrames, resampleFps, width, height, resizeMode, shortSide, pastEnd,
                batchSize, dropLast, layout, clipsPerVideo, sampling, windowStepSeconds, seed, shuffle, epochs,
                decoderThreads, skipNonReferenceFrames, fusedConvert, batchBudgetBytes, failureBudget, config, sampler, splitAfter, fetchHook);
    }

    /** Lays {@code more} over the current pipeline config (stage concurrency, queues, sink). */
    public LoaderOptions withConfig(PipelineConfig more) {
        return new LoaderOptions(frames, strideFrames, resampleFps, width, height, resizeMode, shortSide, pastEnd,
                batchSize, dropLast, layout, clipsPerVideo, sampling, windowStepSeconds, seed, shuffle, epochs,
                decoderThreads, skipNonReferenceFrames, fusedConvert, batchBudgetBytes, failureBudget, config.overriddenBy(more), sampler, splitAfter, fetchHook);
    }

    /** The epoch layout beyond seed and shuffle: shuffle window, rank, world size, tail. */
    public LoaderOptions withSampler(SamplerOptions sampler) {
        return new LoaderOptions(frames, strideFrames, resampleFps, width, height, resizeMode, shortSide, pastEnd,
                batchSize, dropLast, layout, clipsPerVideo, sampling, windowStepSeconds, seed, shuffle, epochs,
                decoderThreads, skipNonReferenceFrames, fusedConvert, batchBudgetBytes, failureBudget, config, sampler, splitAfter, fetchHook);
    }

    /**
     * Runs the stages up to {@code stage} (any of {@link #SPLITTABLE_STAGES}) in a child JVM, their outputs
     * crossing back through shared memory; null runs every stage in this process. {@code "collate"} puts the
     * whole CPU front there (only finished batches cross); {@code "decode"} implies convert fused into decode.
     */
    public LoaderOptions withSplitAfter(String stage) {
        return new LoaderOptions(frames, strideFrames, resampleFps, width, height, resizeMode, shortSide, pastEnd,
                batchSize, dropLast, layout, clipsPerVideo, sampling, windowStepSeconds, seed, shuffle, epochs,
                decoderThreads, skipNonReferenceFrames, fusedConvert, batchBudgetBytes, failureBudget, config, sampler, stage, fetchHook);
    }

    /**
     * Runs a new {@code hook} (its public no-argument constructor) in the fetch stage, just before each video
     * file is read; null for none.
     */
    public LoaderOptions withFetchHook(Class<? extends FetchHook> hook) {
        return new LoaderOptions(frames, strideFrames, resampleFps, width, height, resizeMode, shortSide, pastEnd,
                batchSize, dropLast, layout, clipsPerVideo, sampling, windowStepSeconds, seed, shuffle, epochs,
                decoderThreads, skipNonReferenceFrames, fusedConvert, batchBudgetBytes, failureBudget, config, sampler,
                splitAfter, hook);
    }

    /** This process loads the {@code rank}-th of {@code worldSize} equal parts of every epoch. */
    public LoaderOptions withRank(int rank, int worldSize) {
        return withSampler(sampler.withRank(rank, worldSize));
    }
}
