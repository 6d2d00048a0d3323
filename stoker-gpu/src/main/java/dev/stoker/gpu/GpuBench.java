package dev.stoker.gpu;

import dev.stoker.video.batch.BatchLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Micro-benchmarks of the GPU path, for a machine with a GPU (see docs/benchmarks.md, "GPU"):
 * <pre>
 *   GpuBench h2d [MB] [copies]          host-to-device GB/s: pinned + async vs pageable + cuMemcpyHtoD
 *   GpuBench nvdec FILE [frames] [size] NVDEC decode + NV12-to-RGB into a device batch, frames/s
 * </pre>
 */
public final class GpuBench {
    private GpuBench() {
    }

    public static void main(String[] args) {
        if (args.length == 0) {
            System.err.println("usage: GpuBench h2d [MB] [copies] | nvdec FILE [frames] [size]");
            System.exit(2);
        }
        try (CudaDevice device = Cuda.open(DeviceSpec.cuda(0))) {
            System.out.println("device " + device + ", driver " + device.driverVersion());
            switch (args[0]) {
                case "h2d" -> h2d(device, args.length > 1 ? Integer.parseInt(args[1]) : 64,
                        args.length > 2 ? Integer.parseInt(args[2]) : 50);
                case "nvdec" -> nvdec(device, Path.of(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 300,
                        args.length > 3 ? Integer.parseInt(args[3]) : 112);
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

    private static void nvdec(CudaDevice device, Path file, int frames, int size) {
        int[] indices = new int[frames];
        for (int i = 0; i < frames; i++) {
            indices[i] = i;
        }
        try (DeviceMemory batch = device.allocate(3L * frames * size * size);
             NvdecDecoder decoder = NvdecDecoder.open(file, device)) {
            long t0 = System.nanoTime();
            int decoded = decoder.decodeClip(indices, batch.pointer(), BatchLayout.NTHWC, 0, size, size);
            double seconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf(Locale.ROOT, "%s: %d frames decoded (%s), %d converted to %dx%d RGB in %.3f s: %.0f frames/s%n",
                    file, decoded, decoder.decoderName(), frames, size, size, seconds, decoded / seconds);
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
