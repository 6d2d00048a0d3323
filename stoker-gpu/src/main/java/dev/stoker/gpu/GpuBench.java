package dev.stoker.gpu;

import dev.stoker.video.ClipSpec;
import dev.stoker.video.Resize;
import dev.stoker.video.Video;
import dev.stoker.video.batch.BatchLayout;
import dev.stoker.video.batch.BatchShape;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Micro-benchmarks of the GPU path, for a machine with a GPU (see docs/benchmarks.md, "GPU"):
 * <pre>
 *   GpuBench h2d [MB] [copies]          host-to-device GB/s: pinned + async vs pageable + cuMemcpyHtoD
 *   GpuBench nvdec FILE [frames] [size] [sessions]
 *                                       NVDEC decode + NV12-to-RGB into device memory, frames/s in
 *                                       aggregate over that many sessions at once (default 1)
 * </pre>
 */
public final class GpuBench {
    private GpuBench() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length == 0) {
            System.err.println("usage: GpuBench h2d [MB] [copies] | nvdec FILE [frames] [size] [sessions]");
            System.exit(2);
        }
        try (CudaDevice device = Cuda.open(DeviceSpec.cuda(0))) {
            System.out.println("device " + device + ", driver " + device.driverVersion());
            switch (args[0]) {
                case "h2d" -> h2d(device, args.length > 1 ? Integer.parseInt(args[1]) : 64,
                        args.length > 2 ? Integer.parseInt(args[2]) : 50);
                case "nvdec" -> nvdec(device, Path.of(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 300,
                        args.length > 3 ? Integer.parseInt(args[3]) : 112, args.length > 4 ? Integer.parseInt(args[4]) : 1);
                default -> throw new IllegalArgumentException("mode: " + args[0] + " (expected: h2d or nvdec)");
            }
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
        NvdecCodecs.requireDecoderLibrary();
        try (Video video = Video.open(file); Nv12Kernel kernel = Nv12Kernel.load(device)) {
            int n = Math.min(frames, video.frameCount());
            String unsupported = NvdecCodecs.unsupportedReason(video.info());
            if (unsupported != null) {
                throw new IllegalArgumentException(file + ": " + unsupported);
            }
            BatchShape clip = new BatchShape(1, n, size, size, 3, BatchLayout.NTHWC);
            ClipSpec spec = ClipSpec.frames(0, n, 1);
            Resize resize = Resize.centerCrop(size, size, size);
            long[] decoded = new long[sessions];
            Thread[] threads = new Thread[sessions];
            Throwable[] failure = new Throwable[1];
            java.util.concurrent.CountDownLatch ready = new java.util.concurrent.CountDownLatch(sessions);
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            for (int i = 0; i < sessions; i++) {
                int session = i;
                threads[i] = Thread.ofPlatform().name("nvdec-bench-" + i).start(() -> {
                    try (DeviceMemory target = device.allocate(clip.batchBytes());
                         NvdecDecoder decoder = NvdecDecoder.open(device, kernel, clip, true, null, null)) {
                        List<DeviceClipDecoder.Target> targets = List.of(
                                new DeviceClipDecoder.Target(spec, resize, target.pointer(), target.byteSize()));
                        decoder.decode(video, targets); // warm-up: opens the session, JIT-compiles the kernel
                        ready.countDown();
                        go.await();
                        decoded[session] = decoder.decode(video, targets).clips().getFirst().decodedFrames();
                    } catch (Throwable t) {
                        synchronized (failure) {
                            failure[0] = failure[0] == null ? t : failure[0];
                        }
                        ready.countDown();
                    }
                });
            }
            ready.await();
            long t0 = System.nanoTime();
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            if (failure[0] != null) {
                throw new IllegalStateException("an NVDEC session failed: " + failure[0], failure[0]);
            }
            long total = java.util.Arrays.stream(decoded).sum();
            System.out.printf(Locale.ROOT, "%s (%s %dx%d): %d session(s) x %d frames decoded on NVDEC and converted to"
                            + " %dx%d RGB in %.3f s: %.0f frames/s in aggregate%n", file, video.info().codec(),
                    video.info().codedWidth(), video.info().codedHeight(), sessions, n, size, size, seconds,
                    total / seconds);
        }
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
