package dev.stoker.bench.internal;

import dev.stoker.gpu.Cuda;
import dev.stoker.gpu.CudaDevice;
import dev.stoker.gpu.DeviceMemory;
import dev.stoker.gpu.FfmpegNvdecLoop;
import dev.stoker.gpu.GpuEvent;
import dev.stoker.gpu.GpuStream;
import dev.stoker.gpu.NvdecClipDecoding;
import dev.stoker.gpu.NvdecCodecs;
import dev.stoker.loader.DeviceSpec;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.Resize;
import dev.stoker.video.Video;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

/**
 * Micro-benchmarks of the GPU path, for a machine with a GPU (see docs/benchmarks.md, "GPU"):
 * <pre>
 *   GpuBench h2d [MB] [copies]          host-to-device GB/s: pinned + async vs pageable + cuMemcpyHtoD
 *   GpuBench nvdec FILE [frames] [size] [sessions]
 *                                       NVDEC decode + NV12-to-RGB into device memory, frames/s in
 *                                       aggregate over that many sessions at once (default 1)
 *   GpuBench ffmpeg FILE [frames] [sessions]
 *                                       FFmpeg's own NVDEC decoding in a bare loop ({@link FfmpegNvdecLoop}),
 *                                       frames/s in aggregate, as many at once
 *   GpuBench ceiling FILE [frames] [sessions]
 *                                       the NVDEC ceiling: Stoker's sessions decoding every picture and nothing
 *                                       else (nothing mapped or converted), frames/s in aggregate
 *   GpuBench engines                    the device's NVDEC engines, as its decoder caps report them
 * </pre>
 * A sessions argument of 0 means one per NVDEC engine.
 */
public final class GpuBench {
    private GpuBench() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length == 0) {
            System.err.println("usage: GpuBench h2d [MB] [copies] | nvdec FILE [frames] [size] [sessions]"
                    + " | ffmpeg FILE [frames] [sessions] | ceiling FILE [frames] [sessions] | engines");
            System.exit(2);
        }
        Mode mode = Mode.of(args[0]);
        if (mode == null || (args.length < 2 && mode.readsFile)) {
            System.err.println("GpuBench: mode " + String.join(" ", args)
                    + " (expected: h2d, nvdec FILE, ffmpeg FILE, ceiling FILE or engines)");
            System.exit(2);
        }
        try (CudaDevice device = Cuda.open(DeviceSpec.cuda(0))) {
            System.out.println("device " + device + ", driver " + device.driverVersion());
            switch (mode) {
                case H2D -> h2d(device, args.length > 1 ? Integer.parseInt(args[1]) : 64,
                        args.length > 2 ? Integer.parseInt(args[2]) : 50);
                case NVDEC -> nvdec(device, Path.of(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 300,
                        args.length > 3 ? Integer.parseInt(args[3]) : 112,
                        sessions(device, args.length > 4 ? Integer.parseInt(args[4]) : 1));
                case FFMPEG -> ffmpeg(Path.of(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 300,
                        sessions(device, args.length > 3 ? Integer.parseInt(args[3]) : 1));
                case CEILING -> ceiling(device, Path.of(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 900,
                        sessions(device, args.length > 3 ? Integer.parseInt(args[3]) : 0));
                case ENGINES -> System.out.println("NVDEC engines: " + engines(device));
            }
        }
    }

    /** What a run measures, as its first argument names it ({@code h2d}); some read a video file. */
    private enum Mode {
        H2D(false), NVDEC(true), FFMPEG(true), CEILING(true), ENGINES(false);

        final boolean readsFile;

        Mode(boolean readsFile) {
            this.readsFile = readsFile;
        }

        /** The mode called {@code name}, in lower case; null for none. */
        static Mode of(String name) {
            for (Mode m : values()) {
                if (m.name().toLowerCase(java.util.Locale.ROOT).equals(name)) {
                    return m;
                }
            }
            return null;
        }
    }

    private static void h2d(CudaDevice device, int megabytes, int copies) {
        long bytes = megabytes * 1_000_000L;
        try (DeviceMemory target = device.allocate(bytes); GpuStream stream = device.createStream(); Arena arena = Arena.ofConfined()) {
            MemorySegment pinned = device.hostAllocator().allocate(bytes);
            try {
                pinned.fill((byte) 1);
                stream.copyToDeviceAsync(pinned, target.pointer()); // warm-up
                stream.synchronize();
                GpuEvent start = stream.record();
                for (int i = 0; i < copies; i++) {
                    stream.copyToDeviceAsync(pinned, target.pointer());
                }
                GpuEvent end = stream.record();
                end.await();
                report("pinned, cuMemcpyHtoDAsync (device time)", bytes * copies, end.elapsedMillisSince(start) / 1e3);
                start.close();
                end.close();
                report("pinned, cuMemcpyHtoD loop", bytes * copies, timeSeconds(copies, () -> device.copyToDevice(pinned, target.pointer())));
            } finally {
                device.hostAllocator().free(pinned);
            }
            MemorySegment pageable = arena.allocate(bytes, 4096);
            pageable.fill((byte) 1);
            device.copyToDevice(pageable, target.pointer());
            report("pageable, cuMemcpyHtoD loop", bytes * copies, timeSeconds(copies, () -> device.copyToDevice(pageable, target.pointer())));
        }
    }

    /**
     * {@code sessions} threads, each with its own NVDEC session, decode the first {@code frames} frames of
     * {@code file} at once (one clip of consecutive frames, the loader's decoder and kernel), each into a
     * device buffer of its own: frames/s in aggregate. Compare with as many {@code ffmpeg -hwaccel cuda}
     * processes at once (docs/benchmarks.md).
     */
    private static void nvdec(CudaDevice device, Path file, int frames, int size, int sessions) throws InterruptedException {
        try (Video video = Video.open(file)) {
            int n = Math.min(frames, video.frameCount());
            String unsupported = NvdecCodecs.unsupportedReason(video.info());
            if (unsupported != null) {
                throw new IllegalArgumentException(file + ": " + unsupported);
            }
            // A short file is decoded again until the session has decoded `frames`: a steadier figure.
            int rounds = Math.max(1, (frames + n - 1) / n);
            BatchShape clip = new BatchShape(1, n, size, size, 3, BatchLayout.NTHWC);
            ClipSpec spec = ClipSpec.frames(0, n, 1);
            Resize resize = Resize.centerCrop(size, size, size);
            try (NvdecClipDecoding decoding = NvdecClipDecoding.open(device, clip)) {
                long[] frameCounts = inParallel(sessions, "nvdec-bench", () -> {
                    DeviceMemory target = device.allocate(clip.batchBytes());
                    NvdecClipDecoding.Session decoder;
                    try {
                        decoder = decoding.session();
                    } catch (RuntimeException e) {
                        target.close();   // a session that cannot open must not keep its clip's device memory
                        throw e;
                    }
                    return new Session() {
                        @Override
                        public long run() {
                            long decoded = 0;
                            for (int round = 0; round < rounds; round++) {
                                decoded += decoder.decode(video, spec, resize, target);
                            }
                            return decoded;
                        }

                        @Override
                        public void close() {
                            decoder.close();
                            target.close();
                        }
                    };
                });
                double seconds = frameCounts[sessions] / 1e9;
                long total = Arrays.stream(frameCounts, 0, sessions).sum();
                System.out.printf(Locale.ROOT, "%s (%s %dx%d): %d session(s) x %d frames decoded on NVDEC and converted"
                                + " to %dx%d RGB in %.3f s: %.0f frames/s in aggregate%n", file, video.info().codec(),
                        video.info().codedWidth(), video.info().codedHeight(), sessions, total / sessions, size, size,
                        seconds, total / seconds);
            }
        }
    }

    /** {@code requested} sessions, or one per NVDEC engine for 0. */
    private static int sessions(CudaDevice device, int requested) {
        return requested > 0 ? requested : engines(device);
    }

    private static int engines(CudaDevice device) {
        try (NvdecClipDecoding decoding = NvdecClipDecoding.open(device, new BatchShape(1, 1, 16, 16, 3, BatchLayout.NTHWC))) {
            return decoding.engines();
        }
    }

    /**
     * The NVDEC ceiling: {@code sessions} sessions at once, each decoding {@code frames} pictures of {@code file} and
     * nothing else. Read the engines' busy share beside it ({@code nvidia-smi}'s {@code utilization.decoder}).
     */
    private static void ceiling(CudaDevice device, Path file, int frames, int sessions) throws InterruptedException {
        try (Video video = Video.open(file);
             NvdecClipDecoding decoding = NvdecClipDecoding.open(device, new BatchShape(1, 1, 16, 16, 3, BatchLayout.NTHWC))) {
            long[] counts = inParallel(sessions, "nvdec-ceiling", () -> {
                NvdecClipDecoding.Session s = decoding.session();
                return new Session() {
                    @Override
                    public long run() {
                        return s.decodeOnly(video, frames);
                    }

                    @Override
                    public void close() {
                        s.close();
                    }
                };
            });
            double seconds = counts[sessions] / 1e9;
            long total = Arrays.stream(counts, 0, sessions).sum();
            System.out.printf(Locale.ROOT, "%s (%s %dx%d): %d session(s) x %d pictures decoded on NVDEC, nothing mapped,"
                            + " in %.3f s: %.0f frames/s in aggregate (%d engines)%n", file, video.info().codec(),
                    video.info().codedWidth(), video.info().codedHeight(), sessions, total / sessions, seconds,
                    total / seconds, decoding.engines());
        }
    }

    /** The ceiling {@link #nvdec} is held to: the same file and frames through FFmpeg's NVDEC alone. */
    private static void ffmpeg(Path file, int frames, int sessions) throws InterruptedException {
        try (FfmpegNvdecLoop loop = new FfmpegNvdecLoop(0)) {
            long[] counts = inParallel(sessions, "ffmpeg-nvdec", () -> () -> {
                // As the nvdec mode: a short file again from the start until `frames` are decoded.
                long decoded = 0;
                while (decoded < frames) {
                    long once = loop.decode(file, (int) (frames - decoded));
                    if (once == 0) {
                        throw new IllegalStateException(file + ": no frame decoded");
                    }
                    decoded += once;
                }
                return decoded;
            });
            double seconds = counts[sessions] / 1e9;
            long total = Arrays.stream(counts, 0, sessions).sum();
            System.out.printf(Locale.ROOT, "%s: %d session(s) x %d frames decoded by FFmpeg's NVDEC (cuda hwaccel, frames"
                    + " left on the device, bare loop) in %.3f s: %.0f frames/s in aggregate%n", file, sessions,
                    total / sessions, seconds, total / seconds);
        }
    }

    /** One decoding session of a parallel measurement: run once to warm up, then once timed. */
    private interface Session extends AutoCloseable {
        long run();

        @Override
        default void close() {
        }
    }

    /**
     * Opens {@code sessions} sessions on threads of their own, runs each once to warm up (session start, kernel
     * load), then all at once, timed from one start signal to the last end.
     *
     * @return the frames each session decoded in its timed run, then the nanoseconds the timed runs took
     */
    private static long[] inParallel(int sessions, String name, Supplier<Session> open)
            throws InterruptedException {
        long[] result = new long[sessions + 1];
        Thread[] threads = new Thread[sessions];
        Throwable[] failure = new Throwable[1];
        CountDownLatch ready = new CountDownLatch(sessions);
        CountDownLatch go = new CountDownLatch(1);
        for (int i = 0; i < sessions; i++) {
            int session = i;
            threads[i] = Thread.ofPlatform().name(name + "-" + i).start(() -> {
                boolean counted = false;
                try (Session s = open.get()) {
                    s.run();
                    ready.countDown();
                    counted = true;
                    go.await();
                    result[session] = s.run();
                } catch (Throwable t) {
                    synchronized (failure) {
                        failure[0] = failure[0] == null ? t : failure[0];
                    }
                    if (!counted) {
                        ready.countDown();
                    }
                }
            });
        }
        ready.await();
        long t0 = System.nanoTime();
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        result[sessions] = System.nanoTime() - t0;
        if (failure[0] != null) {
            throw new IllegalStateException("a " + name + " session failed: " + failure[0], failure[0]);
        }
        return result;
    }

    private static double timeSeconds(int times, Runnable body) {
        long t0 = System.nanoTime();
        for (int i = 0; i < times; i++) {
            body.run();
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    private static void report(String what, long bytes, double seconds) {
        System.out.printf(Locale.ROOT, "%-40s %8.2f GB/s%n", what, bytes / seconds / 1e9);
    }
}
