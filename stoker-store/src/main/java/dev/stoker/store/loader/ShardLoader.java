package dev.stoker.store.loader;

import dev.stoker.pipeline.EpochSource;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.Order;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineBuilder;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.store.ClipReader;
import dev.stoker.store.SampleInfo;
import dev.stoker.store.ShardDataset;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.DecodedClip;
import dev.stoker.video.batch.BatchCollator;
import dev.stoker.video.batch.BatchLayout;
import dev.stoker.video.batch.BatchPool;
import dev.stoker.video.batch.BatchShape;
import dev.stoker.video.batch.ClipBatch;
import dev.stoker.video.batch.ClipInfo;
import dev.stoker.video.dataset.ClipSampler;
import dev.stoker.video.dataset.VideoEntry;
import dev.stoker.video.loader.LoaderOptions;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@link dev.stoker.video.loader.VideoLoader}'s batches from an ingested {@link ShardDataset}: the pipeline
 * <pre>
 *   source (seeded epoch order) → fetch → decode → batch → collate → sink
 * </pre>
 * where fetch looks the sample up and samples its clip starts (no I/O: the shards are mapped), decode
 * reads the clips' frames from the mapped shard and decodes and converts them into pooled clip buffers,
 * and collate packs them into one pooled {@link ClipBatch}. Same {@link LoaderOptions}, same epoch order,
 * clip starts, crops and batch layout as VideoLoader over the source dataset; a damaged record fails its
 * sample (counted, skipped within the failure budget) with a message naming shard and record.
 */
public final class ShardLoader implements Iterable<ClipBatch>, AutoCloseable {
    /** Stage names, in order. */
    public static final List<String> STAGES = List.of("fetch", "decode", "batch", "collate");

    private final Pipeline<ClipBatch> pipeline;
    private final Queue<ClipReader> readers;
    private final BatchPool clipBuffers;
    private final BatchPool batches;
    private final LongAdder clips;
    private final LongAdder decodedFrames;

    private ShardLoader(Pipeline<ClipBatch> pipeline, Queue<ClipReader> readers, BatchPool clipBuffers, BatchPool batches,
                        LongAdder clips, LongAdder decodedFrames) {
        this.pipeline = pipeline;
        this.readers = readers;
        this.clipBuffers = clipBuffers;
        this.batches = batches;
        this.clips = clips;
        this.decodedFrames = decodedFrames;
    }

    /** Default knobs: one fetch worker, decode on every core, input order kept (known order, exact resume). */
    public static PipelineConfig defaultConfig(int cores) {
        return new PipelineConfig(4, null, null, Map.of(
                "fetch", new StageConfig(1, null, Order.INPUT, null, null, null),
                "decode", new StageConfig(Math.max(1, cores), null, Order.INPUT, null, null, null),
                "collate", new StageConfig(1, null, Order.INPUT, null, null, null)));
    }

    public static ShardLoader open(ShardDataset dataset, LoaderOptions options) {
        return open(dataset, options, null);
    }

    /** Starts loading; {@code trace} (nullable) records every task. The dataset must outlive the loader. */
    public static ShardLoader open(ShardDataset dataset, LoaderOptions options, TraceRecorder trace) {
        PipelineConfig config = defaultConfig(Runtime.getRuntime().availableProcessors()).overriddenBy(options.config());
        BatchShape clipShape = new BatchShape(1, options.frames(), options.height(), options.width(), 3, BatchLayout.NTHWC);
        BatchShape batchShape = new BatchShape(options.batchSize(), options.frames(), options.height(), options.width(), 3,
                options.layout());
        Queue<ClipReader> readers = new ConcurrentLinkedQueue<>();
        LongAdder clips = new LongAdder();
        LongAdder frames = new LongAdder();
        PipelineConfig effective = describe(dataset, options, null, null, readers, clips, frames).config(config)
                .effectiveConfig();
        StageConfig dec = effective.stage("decode");
        StageConfig bat = effective.stage("batch");
        StageConfig col = effective.stage("collate");
        long clipsHeld = (long) dec.concurrency() * Math.max(options.clipsPerVideo(), 8) + bat.queueCapacity()
                + options.batchSize() + (long) (col.queueCapacity() + col.concurrency()) * options.batchSize() + 4;
        BatchPool clipBuffers = new BatchPool(clipShape, clipsHeld * clipShape.batchBytes());
        long batchBudget = options.batchBudgetBytes() > 0 ? options.batchBudgetBytes()
                : (effective.sinkCapacity() + col.concurrency() + 2L) * batchShape.batchBytes();
        BatchPool batches = new BatchPool(batchShape, batchBudget);
        try {
            PipelineBuilder<ClipBatch> builder = describe(dataset, options, clipBuffers, batches, readers, clips, frames)
                    .config(config);
            if (trace != null) {
                builder = builder.trace(trace);
            }
            return new ShardLoader(builder.build(), readers, clipBuffers, batches, clips, frames);
        } catch (RuntimeException e) {
            clipBuffers.close();
            batches.close();
            throw e;
        }
    }

    /** A sample to load in an epoch; prints as its source path, which failure reports show. */
    record SampleTask(SampleInfo sample, int epoch) {
        @Override
        public String toString() {
            return sample.sourcePath() + " (" + sample.shard() + " record " + sample.record() + ")";
        }
    }

    /** A sample with its clip starts chosen. */
    record PlannedSample(SampleTask task, double[] clipStarts) {
        @Override
        public String toString() {
            return task.toString();
        }
    }

    /** One clip read into a pooled one-clip buffer. */
    record LoadedClip(SampleTask task, ClipBatch pixels, DecodedClip decoded) implements AutoCloseable {
        @Override
        public void close() {
            pixels.close();
        }

        @Override
        public String toString() {
            return task.toString();
        }
    }

    private static PipelineBuilder<ClipBatch> describe(ShardDataset dataset, LoaderOptions options, BatchPool clipBuffers,
                                                       BatchPool batches, Queue<ClipReader> readers, LongAdder clips,
                                                       LongAdder frames) {
        FailureBudget budget = options.failureBudget();
        ClipSampler sampler = switch (options.sampling()) {
            case RANDOM -> ClipSampler.random(options.clipsPerVideo(), options.seed());
            case UNIFORM -> ClipSampler.uniform(options.clipsPerVideo());
            case WINDOWS -> ClipSampler.windows(options.windowStepSeconds());
        };
        ThreadLocal<ClipReader> reader = ThreadLocal.withInitial(() -> {
            ClipReader r = dataset.newReader();
            readers.add(r);
            return r;
        });
        return Pipeline.fromEpochs(epochs(dataset, options))
                .map("fetch", (SampleTask task) -> {
                    SampleInfo s = task.sample();
                    VideoEntry entry = new VideoEntry(s.sourcePath(), s.label(), s.className());
                    double[] starts = sampler.clipStarts(entry, s.durationSeconds(),
                            options.clipSeconds(s.framesPerSecond()), task.epoch(), s.index());
                    return new PlannedSample(task, starts);
                }, s -> s.failureBudget(budget))
                .flatMap("decode", (PlannedSample planned) -> read(planned, options, clipBuffers, reader.get(), clips, frames),
                        s -> s.failureBudget(budget))
                .batch("batch", options.batchSize(), options.dropLast())
                .map("collate", (List<LoadedClip> loaded) -> collate(loaded, batches), s -> s.failureBudget(budget));
    }

    private static EpochSource<SampleTask> epochs(ShardDataset dataset, LoaderOptions options) {
        return epoch -> {
            if (options.epochs() >= 0 && epoch >= options.epochs()) {
                return null;
            }
            int n = dataset.size();
            int[] order = new int[n];
            for (int i = 0; i < n; i++) {
                order[i] = i;
            }
            if (options.shuffle()) { // the same seeded Fisher–Yates as VideoLoader's epoch order
                SplittableRandom random = new SplittableRandom(options.seed() ^ (0x9E3779B97F4A7C15L * (epoch + 1)));
                for (int i = n - 1; i > 0; i--) {
                    int j = random.nextInt(i + 1);
                    int t = order[i];
                    order[i] = order[j];
                    order[j] = t;
                }
            }
            List<SampleTask> tasks = new ArrayList<>(n);
            for (int index : order) {
                tasks.add(new SampleTask(dataset.sample(index), epoch));
            }
            return tasks;
        };
    }

    private static List<LoadedClip> read(PlannedSample planned, LoaderOptions options, BatchPool clipBuffers,
                                         ClipReader reader, LongAdder clips, LongAdder frames) {
        SampleTask task = planned.task();
        List<ClipBatch> buffers = new ArrayList<>(planned.clipStarts().length);
        try {
            List<ClipRequest> requests = new ArrayList<>(planned.clipStarts().length);
            for (int i = 0; i < planned.clipStarts().length; i++) {
                ClipBatch buffer;
                try {
                    buffer = clipBuffers.acquire();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for a clip buffer", e);
                }
                buffers.add(buffer);
                long cropSeed = options.seed() * 0x9E3779B97F4A7C15L + task.epoch() * 1_000_003L
                        + task.sample().index() * 31L + i;
                requests.add(new ClipRequest(options.clipAt(planned.clipStarts()[i]), options.resize(cropSeed),
                        BatchCollator.slot(buffer, 0)));
            }
            List<DecodedClip> decoded = reader.read(task.sample().index(), requests);
            List<LoadedClip> out = new ArrayList<>(decoded.size());
            for (int i = 0; i < decoded.size(); i++) {
                clips.increment();
                frames.add(decoded.get(i).decodedFrames());
                out.add(new LoadedClip(task, buffers.get(i), decoded.get(i)));
            }
            return out;
        } catch (RuntimeException | Error e) {
            buffers.forEach(ClipBatch::close);
            throw e;
        }
    }

    private static ClipBatch collate(List<LoadedClip> loaded, BatchPool batches) {
        ClipBatch batch;
        try {
            batch = batches.acquire();
        } catch (InterruptedException e) {
            loaded.forEach(LoadedClip::close);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a batch buffer", e);
        }
        try {
            for (int i = 0; i < loaded.size(); i++) {
                LoadedClip clip = loaded.get(i);
                double[] times = clip.decoded().ptsSeconds().stream().mapToDouble(Double::doubleValue).toArray();
                ClipInfo info = new ClipInfo(clip.task().sample().sourcePath(), clip.task().sample().label(), times,
                        clip.decoded().decodedFrames());
                BatchCollator.put(batch, i, BatchCollator.slot(clip.pixels(), 0), info);
            }
            return batch;
        } catch (RuntimeException | Error e) {
            batch.close();
            throw e;
        } finally {
            loaded.forEach(LoadedClip::close);
        }
    }

    /** Batches of every epoch. Close each batch when done with it. */
    @Override
    public Iterator<ClipBatch> iterator() {
        return pipeline.iterator();
    }

    /** Batches of the next epoch only. */
    public Iterable<ClipBatch> nextEpoch() {
        return pipeline.nextEpoch();
    }

    /** The running pipeline: stats, failures, effective config. */
    public Pipeline<ClipBatch> pipeline() {
        return pipeline;
    }

    /** Clips read so far. */
    public long decodedClips() {
        return clips.sum();
    }

    /** Frames decoded (or copied) so far, output or not. */
    public long decodedFrames() {
        return decodedFrames.sum();
    }

    public BatchPool batchPool() {
        return batches;
    }

    @Override
    public void close() {
        try {
            pipeline.close();
        } finally {
            if (pipeline.liveThreads().isEmpty()) {
                ClipReader r;
                while ((r = readers.poll()) != null) {
                    r.close();
                }
                clipBuffers.close();
                batches.close();
            }
        }
    }
}
