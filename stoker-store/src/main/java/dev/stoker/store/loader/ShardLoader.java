package dev.stoker.store.loader;

import dev.stoker.loader.CollateStage;
import dev.stoker.loader.HostBatchLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.LoaderStage;
import dev.stoker.loader.MemoryPlan;
import dev.stoker.loader.Opening;
import dev.stoker.loader.ResumeTracker;
import dev.stoker.loader.batch.BatchCollator;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.BatchPool;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.EpochSampler;
import dev.stoker.loader.dataset.internal.SampleGroups;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.loader.internal.LoaderFront;
import dev.stoker.pipeline.EpochSource;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineBuilder;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.store.ClipReader;
import dev.stoker.store.internal.MappedClip;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.prefetch.PrefetchStats;
import dev.stoker.video.ClipRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@link dev.stoker.video.loader.VideoLoader}'s batches from an ingested {@link ShardDataset}: the pipeline
 * <pre>
 *   source (the sampler's epoch order) → fetch → decode → batch → collate → sink
 * </pre>
 * where fetch looks the sample up and samples its clip starts (no I/O: the shards are mapped), decode
 * reads the clips' frames from the mapped shard and decodes and converts them into pooled clip buffers,
 * and collate packs them into one pooled {@link ClipBatch}. Clips that are plain cuts of stored frames
 * ({@code raw} shards at their stored scale, NTHWC batches) skip the clip buffer: decode only selects and
 * verifies them ({@link ClipReader#locate}) and collate copies each pixel once, from the mapping into the batch.
 *
 * <p>The order is an {@link EpochSampler}'s over the shards ({@link #groups}: the samples of one shard form
 * a group, shuffled within windows of {@code options.sampling().sampler().windowGroups()} shards; rank and world size
 * split each epoch), so it is known ahead: {@link ReadAhead} loads the next clips' bytes while earlier ones
 * decode, under a byte budget (remote shards with a block cache: downloads them into the cache, and a cache budget
 * below one batch's working set is refused at open). Clip starts and crops are the same pure functions of (seed, epoch, source
 * index) as VideoLoader's, so a sample's clips are the ones VideoLoader takes from its source video in the
 * same epoch; {@link #state()} and an {@link Opening#resumingFrom} continue a run exactly (batches, clip times, crops). A
 * damaged record fails its sample (counted, skipped within the failure budget) with a message naming shard
 * and record.
 */
public final class ShardLoader extends HostBatchLoader {
    /** The shard loader's stages, in order: fetch looks a sample up, decode reads its clips into clip buffers. */
    public enum Stage implements LoaderStage {
        FETCH, DECODE, BATCH, COLLATE
    }

    private final Parts parts;
    private final ShardDataset dataset;

    private ShardLoader(Pipeline<ClipBatch> pipeline, ResumeTracker resume, Parts parts, int maxLeadFrames,
                        ShardDataset dataset) {
        super(pipeline, resume, parts.clipBuffers(), parts.batches(), maxLeadFrames);
        this.parts = parts;
        this.dataset = dataset;
    }

    /**
     * What the stages run with: the read-ahead, the pools, the readers the decode workers opened (freed with the
     * loader) and the clips and frames they read.
     */
    private record Parts(RecordReadAhead ahead, BatchPool clipBuffers, BatchPool batches, Queue<ClipReader> readers,
                         LongAdder clips, LongAdder frames) {
        void countClip(DecodedClip clip) {
            clips.increment();
            frames.add(clip.decodedFrames());
        }
    }

    /** Default knobs: one fetch worker, decode on every core, input order kept (known order, exact resume). */
    public static PipelineConfig defaultConfig(int cores) {
        return new PipelineConfig(4, null, null, Map.of(
                Stage.FETCH.stageName(), StageConfig.inInputOrder(1),
                Stage.DECODE.stageName(), StageConfig.inInputOrder(Math.max(1, cores)),
                Stage.COLLATE.stageName(), StageConfig.inInputOrder(1)));
    }

    /** The dataset as the sampler sees it: the samples of one shard form a group. */
    public static SampleGroups groups(ShardDataset dataset) {
        int[] shardOfSample = new int[dataset.size()];
        for (int i = 0; i < shardOfSample.length; i++) {
            shardOfSample[i] = dataset.manifest().samples().get(i).shard();
        }
        return SampleGroups.of(shardOfSample);
    }

    /** Starts loading from the start ({@link Opening#defaults()}). The dataset must outlive the loader. */
    public static ShardLoader open(ShardDataset dataset, LoaderOptions options) {
        return open(dataset, options, Opening.defaults());
    }

    /**
     * Starts loading as {@code opening} says: from the start, or where the loader that gave
     * {@link Opening#resumeFrom()} ({@link #state()}) stood, delivering exactly the clips, clip times and crops the
     * uninterrupted loader would have delivered next, in the same batches ({@code options} must be the original
     * ones); reading the shards ahead as its {@link ReadAhead} setting says ({@link ReadAhead#defaults()} without
     * one); batch buffers from its memory (shared memory another process maps, pinned memory), which the loader
     * owns. The dataset must outlive the loader.
     *
     * @throws IllegalArgumentException if resuming and the shards' fingerprint (samples per shard) or the sampling
     *         settings differ from the state's
     */
    public static ShardLoader open(ShardDataset dataset, LoaderOptions options, Opening opening) {
        SamplerState state = opening.resumeFrom().orElse(null);
        EpochSampler sampler;
        if (state == null) {
            sampler = EpochSampler.create(groups(dataset), options.sampling().seed(), options.sampling().shuffle(),
                    options.sampling().sampler());
            state = sampler.start();
        } else {
            EpochSampler.requireSameSettings(state, options.sampling().seed(), options.sampling().shuffle(),
                    options.sampling().sampler());
            sampler = EpochSampler.resume(groups(dataset), state);
        }
        return open(dataset, options, opening, sampler, state);
    }

    private static ShardLoader open(ShardDataset dataset, LoaderOptions options, Opening opening, EpochSampler sampler,
                                    SamplerState start) {
        ReadAhead readAhead = opening.setting(ReadAhead.class, ReadAhead.defaults());
        ResumeTracker resume = new ResumeTracker(sampler, start);
        requireSourceKeyframes(dataset, options);
        ClipPlanner planner = new ClipPlanner(dataset, options);
        PipelineConfig defaults = defaultConfig(Runtime.getRuntime().availableProcessors());
        PipelineConfig config = defaults.overriddenBy(options.requireStages(List.of(Stage.values())).config());
        MemoryPlan plan = MemoryPlan.of(options, defaults, Stage.DECODE, false)   // decode reads converted clips
                .holdingForConsumer(opening.consumerBatches());
        int itemsAhead = (int) Math.max(1, Math.min(1 << 16,
                ((long) readAhead.batchesAhead() * options.batch().size() + options.clipsPerVideo() - 1) / options.clipsPerVideo()));
        long workingSet = 0;
        if (dataset.blockCache() != null) {
            // The decoders of one batch must find room in the cache whatever the read-ahead holds.
            // A batch that starts inside a sample's clips spans one sample more than its clips fill.
            int samplesPerBatch = (options.batch().size() + 2 * options.clipsPerVideo() - 2) / options.clipsPerVideo();
            dataset.blockCache().requireRoomForBatch(samplesPerBatch, dataset.maxSamplePayloadBytes());
            workingSet = dataset.blockCache().batchWorkingSetBytes(samplesPerBatch, dataset.maxSamplePayloadBytes());
        }
        RecordReadAhead ahead = RecordReadAhead.start(dataset, readAhead, sampler, start, options.sampling().epochs(), itemsAhead,
                workingSet, planner::clipsOf);
        BatchPool clipBuffers = null;
        BatchPool batches = null;
        try {
            clipBuffers = new BatchPool(options.clipShape(), plan.clipPoolBytes());
            batches = new BatchPool(options.batchShape(), plan.batchPoolBytes(), opening.batchMemory());
            Parts parts = new Parts(ahead, clipBuffers, batches, new ConcurrentLinkedQueue<>(), new LongAdder(),
                    new LongAdder());
            PipelineBuilder<ClipBatch> builder = describe(dataset, options, planner, parts, resume).config(config);
            Pipeline<ClipBatch> pipeline = opening.trace().map(builder::trace).orElse(builder).build();
            return new ShardLoader(pipeline, resume, parts, options.clip().maxLeadFrames(), dataset);
        } catch (RuntimeException e) {
            ahead.close();
            if (clipBuffers != null) {
                clipBuffers.close();
            }
            if (batches != null) {
                batches.close();
            }
            throw e;
        }
    }

    /** A decode budget draws starts from the sources' keyframes: shards that do not list them fail at open. */
    private static void requireSourceKeyframes(ShardDataset dataset, LoaderOptions options) {
        int budget = options.clip().startBudget();
        if (budget < 0 || dataset.size() == 0) {
            return;
        }
        try {
            dataset.sourceKeyframes(0);
        } catch (dev.stoker.store.internal.ShardException e) {
            if (e.reason() == dev.stoker.store.internal.ShardException.Reason.VERSION) {
                throw new IllegalArgumentException("maxLeadFrames: " + budget + " with shards at " + dataset.location()
                        + ": " + e.getMessage(), e);
            }
            // a damaged first record: its decode names it, as without a budget
        }
    }

    private static PipelineBuilder<ClipBatch> describe(ShardDataset dataset, LoaderOptions options, ClipPlanner planner,
                                                       Parts parts, ResumeTracker resume) {
        FailureBudget budget = options.failureBudget();
        ThreadLocal<ClipReader> reader = ThreadLocal.withInitial(() -> {
            ClipReader r = dataset.newReader();
            parts.readers().add(r);
            return r;
        });
        return Pipeline.fromEpochs(epochs(dataset, resume.sampler(), resume.start(), options.sampling().epochs()))
                .map(Stage.FETCH.stageName(), (SampleTask task) -> {
                    ClipPlanner.Starts planned = planner.plan(task.sample(), task.epoch());
                    double[] starts = planned.seconds();
                    int[] leads = planned.leadFrames();
                    if (task.firstClip() > 0) { // resumed inside this sample: its first clips were delivered
                        int from = Math.min(task.firstClip(), starts.length);
                        starts = Arrays.copyOfRange(starts, from, starts.length);
                        leads = Arrays.copyOfRange(leads, from, leads.length);
                    }
                    return new PlannedSample(task, starts, leads);
                }, s -> s.failureBudget(budget))
                .flatMap(Stage.DECODE.stageName(), (PlannedSample planned) -> read(planned, options, planner, parts,
                        reader.get()), s -> s.failureBudget(budget))
                .batch(Stage.BATCH.stageName(), options.batch().size(), options.batch().dropLast())
                .map(Stage.COLLATE.stageName(), new CollateStage<ShardClip>(parts.batches(), (batch, last) -> resume.collated(batch,
                        last.task().draw().epoch(), last.task().draw().position(), last.clip(), last.clipsOfSample())),
                        s -> s.failureBudget(budget));
    }

    /** The sampler's draws from {@code start} on, as tasks; the pipeline's epoch k is the sampler's start.epoch() + k. */
    private static EpochSource<SampleTask> epochs(ShardDataset dataset, EpochSampler sampler, SamplerState start,
                                                  int endEpoch) {
        return LoaderFront.tasks(sampler, start, endEpoch,
                (draw, firstClip) -> new SampleTask(dataset.sample(draw.sampleIndex()), draw, firstClip));
    }

    private static List<ShardClip> read(PlannedSample planned, LoaderOptions options, ClipPlanner planner, Parts parts,
                                        ClipReader reader) {
        SampleTask task = planned.task();
        int count = planned.clipStarts().length;
        List<ClipSpec> specs = new ArrayList<>(count);
        List<Resize> resizes = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            specs.add(planner.clip(task, task.firstClip() + i, planned.clipStarts()[i]));
            resizes.add(planner.resize(task, task.firstClip() + i));
        }
        Runnable readDone = parts.ahead().beforeRead(task.draw());
        try {
            return read(task, count, specs, resizes, planned.leadFrames(), options, parts, reader);
        } finally {
            readDone.run();
        }
    }

    private static List<ShardClip> read(SampleTask task, int count, List<ClipSpec> specs, List<Resize> resizes,
                                        int[] leads, LoaderOptions options, Parts parts, ClipReader reader) {
        if (options.batch().layout() == BatchLayout.NTHWC) { // NCTHW slots need a transpose, from a buffer
            List<MappedClip> mapped = reader.locate(task.sample().index(), specs, resizes);
            if (mapped != null) {
                List<ShardClip> out = new ArrayList<>(mapped.size());
                for (int i = 0; i < mapped.size(); i++) {
                    parts.countClip(mapped.get(i).clip());
                    out.add(new ShardClip(task, task.firstClip() + i, task.firstClip() + mapped.size(),
                            new ClipPixels.Mapped(mapped.get(i)), mapped.get(i).clip(), leads[i]));
                }
                return out;
            }
        }
        List<ClipBatch> buffers = new ArrayList<>(count);
        try {
            List<ClipRequest> requests = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                ClipBatch buffer = parts.clipBuffers().acquireInStage("a clip buffer");
                buffers.add(buffer);
                requests.add(new ClipRequest(specs.get(i), resizes.get(i), BatchCollator.slot(buffer, 0)));
            }
            List<DecodedClip> decoded = reader.read(task.sample().index(), requests);
            List<ShardClip> out = new ArrayList<>(decoded.size());
            for (int i = 0; i < decoded.size(); i++) {
                parts.countClip(decoded.get(i));
                out.add(new ShardClip(task, task.firstClip() + i, task.firstClip() + decoded.size(),
                        new ClipPixels.Buffered(buffers.get(i)), decoded.get(i), leads[i]));
            }
            return out;
        } catch (RuntimeException | Error e) {
            buffers.forEach(ClipBatch::close);
            throw e;
        }
    }

    /** The read-ahead's counters (hit rate, bytes held, peak and budget, mean occupancy); null when it is off. */
    public PrefetchStats readAheadStats() { return parts.ahead().stats(); }

    @Override
    public List<Stage> stages() {
        return List.of(Stage.values());
    }

    @Override
    public List<String> classNames() { return dataset.classNames(); }

    /** The shards it reads (their stats: remote requests, the block cache's). */
    public ShardDataset dataset() { return dataset; }

    /** Clips read so far. */
    @Override
    public long decodedClips() { return parts.clips().sum(); }

    /** Frames decoded (or copied) so far, output or not. */
    @Override
    public long decodedFrames() { return parts.frames().sum(); }

    @Override
    protected void pipelineClosed() {
        parts.ahead().close();
    }

    @Override
    protected void freeWorkers() {
        ClipReader r;
        while ((r = parts.readers().poll()) != null) {
            r.close();
        }
    }

}
