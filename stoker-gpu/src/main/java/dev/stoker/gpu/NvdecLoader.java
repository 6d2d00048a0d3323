package dev.stoker.gpu;

import dev.stoker.loader.DecodeDevice;
import dev.stoker.loader.DeviceSpec;
import dev.stoker.loader.internal.LoaderFront;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.LoaderStage;
import dev.stoker.loader.MemoryPlan;
import dev.stoker.loader.Opening;
import dev.stoker.loader.ResumeTracker;
import dev.stoker.loader.VideoStage;
import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.EpochSampler;
import dev.stoker.pipeline.Order;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineBuilder;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.video.loader.internal.VideoFront;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Loads batches of clips decoded on the GPU: the pipeline
 * <pre>
 *   source (seeded epoch order) → fetch → demux → nvdec → batch → collate → sink
 * </pre>
 * where fetch and demux are the CPU loader's own stages (so the same clip starts), {@code nvdec} decodes
 * each video's clips on NVDEC and converts them on the device into device clip buffers
 * ({@link NvdecDecoder}: the CPU path's frame selection, a PTX kernel for NV12 → RGB, crop and resize), and
 * collate copies a batch's clips into one device batch buffer. Nothing of the pixels crosses PCIe; the
 * consumer receives {@link DeviceBatch}es with the same clips, labels, frame times and order as the CPU
 * loader's batches for the same options and seed, and the same resume states.
 *
 * <pre>{@code
 * try (NvdecLoader loader = NvdecLoader.open(Dataset.open(root), LoaderOptions.defaults(), DeviceSpec.parse("cuda:0"),
 *                                            Opening.defaults())) {
 *     for (DeviceBatch batch : loader) {
 *         try (batch) { train(batch.devicePointer(), batch.shape(), batch.labels()); }  // then sync your stream
 *     }
 * }
 * }</pre>
 *
 * <p>Knobs: the {@code nvdec} stage's concurrency is the number of NVDEC sessions at once
 * ({@link #sessions(int)}; default {@link GpuDecodeOptions#defaultSessions min(4, cores)}); the sink holds the
 * batches decoded ahead (default 4). The CPU decoder's stages ({@code decode}, {@code convert}) do not exist
 * here, and a config naming them is refused; {@link LoaderOptions.Decode#fusedConvert()} has no effect and
 * {@link LoaderOptions.Placement#splitAfter()} is not supported yet.
 *
 * <p>Experimental: written and unit-tested against a fake device and a CPU decode session; not yet run on a GPU.
 */
public final class NvdecLoader extends DeviceBatchLoader<CollatedDeviceBatch> {
    /**
     * The NVDEC loader's stages: fetch and demux are the video loader's; {@link #NVDEC} decodes on NVDEC sessions, or,
     * in a hybrid loader, {@link #DECODE} hands each video to the NVDEC and CPU pools.
     */
    public enum Stage implements LoaderStage {
        FETCH, DEMUX, NVDEC, DECODE, BATCH, COLLATE
    }

    /** Its stages, in order. */
    public static final List<Stage> STAGES = List.of(Stage.FETCH, Stage.DEMUX, Stage.NVDEC, Stage.BATCH, Stage.COLLATE);
    /** A hybrid loader's stages, in order. */
    public static final List<Stage> HYBRID_STAGES = List.of(Stage.FETCH, Stage.DEMUX, Stage.DECODE, Stage.BATCH,
            Stage.COLLATE);
    /** The CPU loader's stages that GPU decoding replaces. */
    private static final List<VideoStage> CPU_DECODE_STAGES = List.of(VideoStage.DECODE, VideoStage.CONVERT);

    private final Pipeline<CollatedDeviceBatch> pipeline;
    private final Resources resources;
    private final ResumeTracker resume;
    private final TraceRecorder trace;
    private final List<String> classNames;
    private final List<Stage> stages;
    private final AtomicLong sequence = new AtomicLong();

    /**
     * What the loader holds besides its pipeline, freed in this order once the pipeline's threads stopped.
     *
     * @param decoderResources what the decode sessions share (the kernel), freed after them
     */
    private record Resources(NvdecStage nvdec, DeviceCollateStage collate, DeviceBufferPool clipBuffers,
                             DeviceBufferPool batchBuffers, AutoCloseable decoderResources, GpuDevice device)
            implements AutoCloseable {
        @Override
        public void close() {
            Closeables.closeAll(nvdec, collate, clipBuffers, batchBuffers, decoderResources, device);
        }
    }

    private NvdecLoader(Pipeline<CollatedDeviceBatch> pipeline, Resources resources, ResumeTracker resume, TraceRecorder trace,
                        List<String> classNames, List<Stage> stages) {
        super(resources.device(), pipeline, pipeline::nextEpoch, resume.start());
        this.classNames = classNames;
        this.stages = stages;
        this.pipeline = pipeline;
        this.resources = resources;
        this.resume = resume;
        this.trace = trace;
    }

    /**
     * Opens {@code device} first, so that a machine without one, or without the driver's NVDEC library,
     * fails at once naming what is missing; then starts loading as {@code opening} says: from the start, or where
     * the loader that gave {@link Opening#resumeFrom()} ({@link #state()}) stood, as the CPU loader resumes (the same
     * clips, times, crops and batches next); decoding as its {@link GpuDecodeOptions} say
     * ({@link GpuDecodeOptions#defaults()} without them).
     *
     * @throws GpuUnavailableException if the device or NVDEC cannot be had
     * @throws IllegalArgumentException if {@code options} name CPU decode stages or a process split, or if resuming
     *         and the dataset's fingerprint or the sampling settings differ from the state's
     */
    public static NvdecLoader open(Dataset dataset, LoaderOptions options, DeviceSpec device, Opening opening) {
        ResumeTracker from = opening.resumeFrom().map(state -> LoaderFront.resume(dataset, options, state))
                .orElseGet(() -> LoaderFront.start(dataset, options));
        return open(dataset, options, device, opening.setting(GpuDecodeOptions.class, GpuDecodeOptions.defaults()),
                opening.trace().orElse(null), from);
    }

    private static NvdecLoader open(Dataset dataset, LoaderOptions options, DeviceSpec spec, GpuDecodeOptions decode,
                                    TraceRecorder trace, ResumeTracker from) {
        boolean hybrid = options.decode().device() == DecodeDevice.HYBRID;
        requireGpuDecodable(options, hybrid);
        CudaDevice device = Cuda.open(spec);
        Nv12Kernel kernel = null;
        try {
            NvdecCodecs.requireDecoderLibrary();
            Nv12Kernel loaded = Nv12Kernel.load(device);
            kernel = loaded;
            DriverNvdecApi api = DriverNvdecApi.open(device, loaded);
            NvdecCaps caps = new NvdecCaps(api);
            BatchShape clipShape = clipShape(options);
            boolean skip = options.decode().skipNonReferenceFrames();
            Supplier<DeviceClipDecoder> onCpu = () -> new CpuClipUploader(device, clipShape, options.decode().threads(), skip);
            Supplier<DeviceClipDecoder> fallback = decode.cpuFallback() ? onCpu : null;
            Supplier<DeviceClipDecoder> sessions = () -> new NvdecRouter(
                    new NvdecSession(api, caps, device.id(), clipShape, skip, trace),
                    () -> NvdecDecoder.open(device, loaded, clipShape, skip, fallback, trace), fallback);
            int sessionCount = sessions(options, caps);
            if (hybrid) {
                return openHybrid(dataset, options, device, sessionCount, sessions, cpuWorkers(options, sessionCount),
                        onCpu, loaded, from, trace);
            }
            return open(dataset, options, device, VideoDecoding.perWorker(sessions), sessionCount, loaded, from, trace);
        } catch (RuntimeException | Error e) {
            if (kernel != null) {
                kernel.close();
            }
            device.close();
            throw e;
        }
    }

    /**
     * The loader on any device with any decode session per worker thread (tests: a fake device, a CPU
     * session). It owns {@code device} and {@code decoderResources} (closed after the sessions), and closes both.
     */
    static NvdecLoader open(Dataset dataset, LoaderOptions options, GpuDevice device,
                            Supplier<? extends DeviceClipDecoder> sessions, AutoCloseable decoderResources,
                            ResumeTracker from, TraceRecorder trace) {
        requireGpuDecodable(options, false);
        return open(dataset, options, device, VideoDecoding.perWorker(sessions), null, decoderResources, from, trace);
    }

    /** The NVDEC loader: each {@code nvdec} worker decodes with its own session; {@code sessions} null: the config's. */
    private static NvdecLoader open(Dataset dataset, LoaderOptions options, GpuDevice device, VideoDecoding decoding,
                                    Integer sessions, AutoCloseable decoderResources, ResumeTracker from,
                                    TraceRecorder trace) {
        PipelineConfig defaults = defaultConfig(Runtime.getRuntime().availableProcessors());
        if (sessions != null) {
            String nvdec = Stage.NVDEC.stageName();
            defaults = defaults.withStage(nvdec, defaults.stage(nvdec).withConcurrency(sessions));
        }
        return open(dataset, options, device, decoding, Stage.NVDEC, defaults, defaults.overriddenBy(options.config()),
                decoderResources, from, trace);
    }

    /**
     * The hybrid loader: its {@code decode} stage hands each video to {@code sessions} NVDEC sessions and
     * {@code cpuWorkers} CPU workers taking from one queue ({@link HybridDecoding}); the stage has as many workers
     * again, waiting, so that videos queue for the routing to choose among.
     */
    static NvdecLoader openHybrid(Dataset dataset, LoaderOptions options, GpuDevice device, int sessions,
                                  Supplier<? extends DeviceClipDecoder> sessionFactory, int cpuWorkers,
                                  Supplier<? extends DeviceClipDecoder> cpuFactory, AutoCloseable decoderResources,
                                  ResumeTracker from, TraceRecorder trace) {
        requireGpuDecodable(options, true);
        int cores = Runtime.getRuntime().availableProcessors();
        int stageWorkers = 2 * (sessions + cpuWorkers);
        PipelineConfig base = defaultConfig(cores);
        PipelineConfig defaults = new PipelineConfig(base.sinkCapacity(), base.failureBudget(), base.stallTimeoutMillis(),
                Map.of(Stage.FETCH.stageName(), base.stage(Stage.FETCH.stageName()),
                        Stage.DEMUX.stageName(), base.stage(Stage.DEMUX.stageName()),
                        Stage.DECODE.stageName(), new StageConfig(stageWorkers, 2 * stageWorkers, Order.INPUT, null, null, null),
                        Stage.COLLATE.stageName(), base.stage(Stage.COLLATE.stageName())));
        // The decode and nvdec settings size the pools (cpuWorkers, sessions), not the stage that hands videos to them.
        List<String> pools = LoaderStage.names(List.of(Stage.DECODE, Stage.NVDEC));
        PipelineConfig given = options.config();
        PipelineConfig user = new PipelineConfig(given.sinkCapacity(), given.failureBudget(), given.stallTimeoutMillis(),
                given.stages().entrySet().stream().filter(e -> !pools.contains(e.getKey()))
                        .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
        HybridDecoding decoding = new HybridDecoding(sessions, sessionFactory, cpuWorkers, cpuFactory);
        return open(dataset, options, device, decoding, Stage.DECODE, defaults, defaults.overriddenBy(user), decoderResources,
                from, trace);
    }

    private static NvdecLoader open(Dataset dataset, LoaderOptions options, GpuDevice device, VideoDecoding decoding,
                                    Stage decodeStage, PipelineConfig defaults, PipelineConfig config,
                                    AutoCloseable decoderResources, ResumeTracker from, TraceRecorder trace) {
        BatchShape clipShape = clipShape(options);
        BatchShape batchShape = options.batchShape();
        MemoryPlan plan = MemoryPlan.of(options, defaults, decodeStage, false);
        DeviceBufferPool clipBuffers = new DeviceBufferPool(device, "clip", clipShape.batchBytes(),
                (int) Math.min(Integer.MAX_VALUE, plan.clipsHeld()));
        DeviceBufferPool batchBuffers = new DeviceBufferPool(device, "batch", batchShape.batchBytes(),
                (int) plan.batchesHeld());
        NvdecStage nvdec = new NvdecStage(options, clipBuffers, decoding);
        DeviceCollateStage collate = new DeviceCollateStage(batchBuffers, batchShape, from.sampler(), trace);
        Resources resources = new Resources(nvdec, collate, clipBuffers, batchBuffers, decoderResources, device);
        try {
            PipelineBuilder<CollatedDeviceBatch> builder = describe(dataset, options, from, decodeStage, nvdec, collate)
                    .config(config);
            if (trace != null) {
                builder = builder.trace(trace);
            }
            return new NvdecLoader(builder.build(), resources, from, trace, dataset.classNames(),
                    decodeStage == Stage.NVDEC ? STAGES : HYBRID_STAGES);
        } catch (RuntimeException | Error e) {
            resources.close();
            throw e;
        }
    }

    /**
     * The default knobs for a machine with {@code cores} cores: the CPU loader's, with {@code nvdec} in place
     * of decode and convert, and more demux workers, since the GPU decodes faster than one core demuxes.
     */
    public static PipelineConfig defaultConfig(int cores) {
        return new PipelineConfig(4, null, null, Map.of(
                Stage.FETCH.stageName(), new StageConfig(4, null, Order.INPUT, true, null, null),
                Stage.DEMUX.stageName(), new StageConfig(Math.max(1, Math.min(4, cores / 2)), null, Order.INPUT, null, null, null),
                Stage.NVDEC.stageName(), new StageConfig(GpuDecodeOptions.defaultSessions(cores), null, Order.INPUT, null, null,
                        null),
                Stage.COLLATE.stageName(), new StageConfig(1, null, Order.INPUT, null, null, null)));
    }

    /** A config setting the NVDEC sessions (the {@code nvdec} stage's concurrency): {@code options.withConfig(sessions(7))}. */
    public static PipelineConfig sessions(int sessions) {
        if (sessions < 1) {
            throw new IllegalArgumentException("sessions: " + sessions + " (expected: 1+)");
        }
        return PipelineConfig.EMPTY.withStage(Stage.NVDEC.stageName(), StageConfig.EMPTY.withConcurrency(sessions));
    }

    /** The NVDEC sessions: the options' count, else the config's {@code nvdec} concurrency, else one per engine. */
    static int sessions(LoaderOptions options, NvdecCaps caps) {
        if (options.decode().nvdecSessions() > 0) {
            return options.decode().nvdecSessions();
        }
        StageConfig nvdec = options.config().stages().get(Stage.NVDEC.stageName());
        return nvdec != null && nvdec.concurrency() != null ? nvdec.concurrency() : caps.engines();
    }

    /**
     * The hybrid loader's CPU workers: the config's {@code decode} concurrency (the CPU loader's knob), else the cores
     * less those the sessions' parsing, demux and collate keep busy (half a core a session, one for the rest).
     */
    static int cpuWorkers(LoaderOptions options, int sessions) {
        StageConfig decode = options.config().stages().get(Stage.DECODE.stageName());
        if (decode != null && decode.concurrency() != null) {
            return decode.concurrency();
        }
        int cores = Runtime.getRuntime().availableProcessors();
        return Math.max(1, cores - 1 - (sessions + 1) / 2);
    }

    private static void requireGpuDecodable(LoaderOptions options, boolean hybrid) {
        for (VideoStage stage : CPU_DECODE_STAGES) {
            if (hybrid && stage == VideoStage.DECODE) {
                continue;   // the hybrid loader's CPU workers
            }
            if (options.config().stages().containsKey(stage.stageName())) {
                throw new IllegalArgumentException("config names stage '" + stage.stageName() + "', which decoding on the GPU"
                        + " replaces (expected: stages " + LoaderStage.names(STAGES) + "; NVDEC sessions are the '"
                        + Stage.NVDEC.stageName() + "' stage's concurrency)");
            }
        }
        if (options.placement().splitAfter() != null) {
            throw new IllegalArgumentException("splitAfter: '" + options.placement().splitAfter().stageName() + "' with GPU decoding (expected:"
                    + " null; running fetch and demux in a child process is not supported with NVDEC yet)");
        }
    }

    private static PipelineBuilder<CollatedDeviceBatch> describe(Dataset dataset, LoaderOptions options, ResumeTracker from,
                                                                 Stage decodeStage, NvdecStage nvdec, DeviceCollateStage collate) {
        return VideoFront.demuxed(dataset, options, from)
                .flatMap(decodeStage.stageName(), opened -> nvdec.apply(opened), s -> s.failureBudget(options.failureBudget()))
                .batch(Stage.BATCH.stageName(), options.batch().size(), options.batch().dropLast())
                .map(Stage.COLLATE.stageName(), clips -> collate.apply(clips), s -> s.failureBudget(options.failureBudget()));
    }

    private static BatchShape clipShape(LoaderOptions options) {
        return new BatchShape(1, options.clip().frames(), options.size().height(), options.size().width(), 3, options.batch().layout());
    }

    /** {@code collated}, each handed out as a device batch, moving the resume state forward. */
    @Override
    Iterator<DeviceBatch> onDevice(Iterator<CollatedDeviceBatch> collated) {
        return new MappingIterator<>(collated, b -> {
            handedOut(b.after());
            return deliver(sequence.getAndIncrement(), b);
        });
    }

    private DeviceBatch deliver(long sequence, CollatedDeviceBatch b) {
        long deliveredNanos = System.nanoTime();
        AtomicBoolean released = new AtomicBoolean();
        AutoCloseable release = () -> {
            if (released.compareAndSet(false, true)) {
                if (trace != null) {
                    trace.slice("device batch in use", "gpu", Thread.currentThread(), deliveredNanos,
                            System.nanoTime() - deliveredNanos, sequence, "batch " + sequence);
                }
                b.close();
            }
        };
        return new DeviceBatch(sequence, b.buffer().pointer(), b.bytes(), b.shape(), b.layout(), b.labels(), b.clips(),
                b.stream(), b.ready(), release, b.paths());
    }

    /** The sampler behind the epoch order. */
    @Override
    public List<String> classNames() { return classNames; }

    @Override
    public List<Stage> stages() { return stages; }

    @Override
    public EpochSampler sampler() { return resume.sampler(); }

    /** The running pipeline: stats, failures (path, stage, reason), effective config. */
    @Override
    public Pipeline<?> pipeline() { return pipeline; }

    /** Clips decoded so far, on NVDEC or by the CPU fallback. */
    @Override
    public long decodedClips() {
        return resources.nvdec().clips.sum();
    }

    /** Frames the decoders produced so far, output or not: divided by clips, the cost of a clip. */
    @Override
    public long decodedFrames() {
        return resources.nvdec().decodedFrames.sum();
    }

    /** Clips decoded on the CPU because NVDEC could not decode their video ({@link GpuDecodeOptions#cpuFallback()}). */
    public long cpuFallbackClips() {
        return resources.nvdec().fallbackClips.sum();
    }

    /** {@link #cpuFallbackClips()} by reason, e.g. {@code codec mpeg4 has no NVDEC hwaccel in this FFmpeg build}. */
    public Map<String, Long> cpuFallbackReasons() {
        return resources.nvdec().fallbackReasons();
    }

    /** Clips decoded so far by each path: Stoker's NVDEC session, FFmpeg's NVDEC, the CPU pool, the CPU fallback. */
    public Map<DecodePath, Long> clipsByPath() {
        return resources.nvdec().clipsByPath();
    }

    /** The hybrid loader's two pools (NVDEC sessions, CPU workers), for the stage table; empty for the NVDEC loader. */
    public List<DecodePoolStats> decodePools() {
        return resources.nvdec().pools();
    }

    /** Device clip buffers (for tests and reports): created, in use, waits. */
    DeviceBufferPool clipBuffers() { return resources.clipBuffers(); }

    DeviceBufferPool batchBuffers() { return resources.batchBuffers(); }

    /**
     * Stops every stage and frees the sessions, the device buffers (batches still out become invalid), the
     * kernel and the device. A worker stuck in native code keeps its resources (leaked rather than freed
     * under it), as the CPU loader does.
     */
    @Override
    public void close() {
        try {
            pipeline.close();
        } finally {
            if (pipeline.liveThreads().isEmpty()) {
                resources.close();
            }
        }
    }
}
