package dev.stoker.bench.internal;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.dataset.internal.ArchiveMembers;
import dev.stoker.video.ClipDecoder;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.Video;
import dev.stoker.video.VideoPackets;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The yardstick for decode efficiency: the same clips the pipeline delivered, demuxed, decoded and
 * converted one after another on one thread, with no pipeline around them. Files are read into
 * memory first and not timed (the pipeline's fetch overlaps I/O; this measures CPU work). Three
 * passes, the median counts: one pass warms the JIT and caches, and a lucky quiet moment on a shared
 * machine does not set the bar. Thread CPU time is read as well, so that an efficiency by CPU time
 * (immune to other processes' load) can be given beside the wall-clock one.
 *
 * @param clips             clips decoded per pass
 * @param clipsPerSecond    single-thread rate, wall clock
 * @param cpuSecondsPerClip CPU time one clip costs on this thread
 */
public record SingleThreadReference(int clips, double clipsPerSecond, double cpuSecondsPerClip) {
    private static final int PASSES = 3;
    /** Past a segment clip's last frame time, under any frame interval (240 fps: 4.2 ms), so that the span ends there. */
    private static final double SPAN_END_SECONDS = 1e-3;

    public static SingleThreadReference measure(List<ClipInfo> delivered, LoaderOptions options) throws IOException {
        Map<Path, Source> files = readFiles(delivered, options);
        long clipBytes = (long) options.clip().frames() * options.size().width() * options.size().height() * 3;
        double[] seconds = new double[PASSES];
        double[] cpuSeconds = new double[PASSES];
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        try (Arena arena = Arena.ofConfined(); ClipDecoder decoder = new ClipDecoder(options.decode().threads(),
                options.decode().skipNonReferenceFrames())) {
            MemorySegment destination = arena.allocate(clipBytes, 64);
            for (int pass = 0; pass < PASSES; pass++) {
                long start = System.nanoTime();
                long cpuStart = threads.getCurrentThreadCpuTime();
                int i = 0;
                for (ClipInfo c : delivered) {
                    decodeOne(decoder, c, files, options, i++, destination);
                }
                seconds[pass] = (System.nanoTime() - start) / 1e9;
                cpuSeconds[pass] = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e9;
            }
        }
        java.util.Arrays.sort(seconds);
        java.util.Arrays.sort(cpuSeconds);
        return new SingleThreadReference(delivered.size(), delivered.size() / seconds[PASSES / 2],
                cpuSeconds[PASSES / 2] / delivered.size());
    }

    /**
     * The machine's own ceiling for decode efficiency: {@code threads} copies of this reference run at
     * once, each on its own thread with its own decoder, sharing nothing but the machine. On a VM whose
     * vCPUs share a physical core, caches or memory bandwidth, they reach less than {@code threads} times
     * the single-thread rate, and no loader can do better than they do. Passes alternate with
     * single-thread ones, so that a change in the machine's load between them shows in both; medians of
     * {@value #PASSES} each.
     *
     * @return the parallel rate against {@code threads} times the single-thread rate measured beside it
     */
    public static DecodeCeiling measureCeiling(List<ClipInfo> delivered, LoaderOptions options, int threads)
            throws IOException, InterruptedException {
        Map<Path, Source> files = readFiles(delivered, options);
        double[] single = new double[PASSES];
        double[] parallel = new double[PASSES];
        for (int pass = 0; pass < PASSES; pass++) {
            single[pass] = timedPasses(delivered, files, options, 1);
            parallel[pass] = timedPasses(delivered, files, options, threads);
        }
        java.util.Arrays.sort(single);
        java.util.Arrays.sort(parallel);
        double singleRate = delivered.size() / single[PASSES / 2];
        double parallelRate = (double) threads * delivered.size() / parallel[PASSES / 2];
        return new DecodeCeiling(threads, singleRate, parallelRate, parallelRate / (threads * singleRate));
    }

    /**
     * Seconds each clip takes alone on this thread (demux, decode, convert; the file already in memory), the
     * better of two passes: what one clip costs once the JIT and caches are warm, whatever else ran.
     */
    public static double[] eachAlone(List<ClipInfo> clips, LoaderOptions options) throws IOException {
        Map<Path, Source> files = readFiles(clips, options);
        long clipBytes = (long) options.clip().frames() * options.size().width() * options.size().height() * 3;
        double[] best = new double[clips.size()];
        java.util.Arrays.fill(best, Double.POSITIVE_INFINITY);
        try (Arena arena = Arena.ofConfined(); ClipDecoder decoder = new ClipDecoder(options.decode().threads(),
                options.decode().skipNonReferenceFrames())) {
            MemorySegment destination = arena.allocate(clipBytes, 64);
            for (int pass = 0; pass < 2; pass++) {
                for (int i = 0; i < clips.size(); i++) {
                    long start = System.nanoTime();
                    decodeOne(decoder, clips.get(i), files, options, i, destination);
                    best[i] = Math.min(best[i], (System.nanoTime() - start) / 1e9);
                }
            }
        }
        return best;
    }

    /** Demuxes, decodes and converts {@code c} (the {@code index}-th clip: its crop) from its file's bytes. */
    private static void decodeOne(ClipDecoder decoder, ClipInfo c, Map<Path, Source> files, LoaderOptions options, int index,
                                  MemorySegment destination) {
        double[] t = c.frameTimestampsSeconds();
        // A segment clip's frames were drawn from a seed the clip's info does not carry: the middles of the same span,
        // first frame to last, decode what it decoded (the span and its keyframes set the cost, not the draw).
        ClipSpec spec = options.clip().starts().segments()
                ? ClipSpec.segments(t[0], t[t.length - 1] + SPAN_END_SECONDS, t.length, false, 0)
                : options.clip().at(t[0]);
        try (Video video = files.get(c.path()).open(c.path())) {
            decoder.decode(video, new ClipRequest(spec, options.resize(index), destination));
        }
    }

    /** A clip's video in memory: a file's bytes, or the packets of a folder of images (every frame read). */
    private record Source(byte[] bytes, VideoPackets packets) {
        static Source read(Path path, double frameFolderFps) throws IOException {
            if (!Files.isDirectory(path)) {
                return new Source(ArchiveMembers.readAllBytes(path), null); // a file, or a tar archive's member
            }
            try (Video video = Video.open(path, frameFolderFps)) {
                VideoPackets p = video.asPackets();
                // The view dies with the video: the payloads are copied into memory the GC frees.
                MemorySegment data = Arena.ofAuto().allocate(p.data().byteSize()).copyFrom(p.data());
                return new Source(null, new VideoPackets(p.codecName(), p.width(), p.height(), p.pixelFormat(),
                        p.timeBaseNumerator(), p.timeBaseDenominator(), p.framesPerSecond(), p.extradata(), data, p.pts(),
                        p.durations(), p.keyframes(), p.offsets(), p.sizes(), p.demuxed()));
            }
        }

        Video open(Path path) {
            return packets != null ? Video.fromPackets(path.toString(), packets) : Video.open(path.toString(), bytes);
        }
    }

    /** Each clip's file, read once into memory: reading is not what the reference times. */
    private static Map<Path, Source> readFiles(List<ClipInfo> delivered, LoaderOptions options) throws IOException {
        Map<Path, Source> files = new HashMap<>();
        for (ClipInfo c : delivered) {
            if (!files.containsKey(c.path())) {
                files.put(c.path(), Source.read(c.path(), options.clip().frameFolderFps()));
            }
        }
        return files;
    }

    /** Seconds until {@code threads} threads, started together, have each decoded every clip once. */
    private static double timedPasses(List<ClipInfo> delivered, Map<Path, Source> files, LoaderOptions options,
                                      int threads) throws InterruptedException {
        long clipBytes = (long) options.clip().frames() * options.size().width() * options.size().height() * 3;
        java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic.AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(Thread.ofPlatform().name("stoker-reference-" + t).start(() -> {
                try (Arena arena = Arena.ofConfined(); ClipDecoder decoder = new ClipDecoder(options.decode().threads(),
                        options.decode().skipNonReferenceFrames())) {
                    MemorySegment destination = arena.allocate(clipBytes, 64);
                    start.await();
                    int i = 0;
                    for (ClipInfo c : delivered) {
                        decodeOne(decoder, c, files, options, i++, destination);
                    }
                } catch (Throwable e) {
                    failed.compareAndSet(null, e);
                }
            }));
        }
        long begin = System.nanoTime();
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        if (failed.get() != null) {
            throw new IllegalStateException("the parallel reference failed: " + failed.get().getMessage(), failed.get());
        }
        return (System.nanoTime() - begin) / 1e9;
    }
}
