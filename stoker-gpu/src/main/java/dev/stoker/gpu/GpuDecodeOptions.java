package dev.stoker.gpu;

import dev.stoker.loader.DecodeDevice;
import dev.stoker.loader.LoaderOptions;

/**
 * How {@link NvdecLoader} decodes on the GPU. The NVDEC stage's concurrency (decoder sessions running at
 * once, one per worker thread) is the pipeline knob {@code nvdec} ({@link NvdecLoader#sessions(int)}), by
 * default {@link #defaultSessions(int) min(4, cores)}.
 *
 * @param cpuFallback {@code true}: a video NVDEC cannot decode (codec without NVDEC, 10-bit or 4:2:2/4:4:4,
 *                    rotated, BT.2020, a profile NVDEC lacks) is decoded on the CPU, exactly as the CPU loader
 *                    would, and copied to the device, so the dataset keeps every sample (counted in
 *                    {@link NvdecLoader#cpuFallbackClips()}); {@code false}: it fails with reason
 *                    {@code unsupported-codec}, within the failure budget
 */
public record GpuDecodeOptions(boolean cpuFallback) {

    /** CPU fallback on. */
    public static GpuDecodeOptions defaults() {
        return new GpuDecodeOptions(true);
    }

    public GpuDecodeOptions withCpuFallback(boolean fallback) {
        return new GpuDecodeOptions(fallback);
    }

    /**
     * NVDEC sessions where the engines are not known (a fake device): up to 4, no more than cores. On a GPU the
     * loader runs one session per NVDEC engine ({@code nNumNVDECs} of the decoder caps: 7 on an H100).
     */
    public static int defaultSessions(int cores) {
        return Math.max(1, Math.min(4, cores));
    }

    /** Cores from which {@code auto} decodes on NVDEC and the CPU at once rather than on NVDEC alone. */
    static final int HYBRID_FROM_CORES = 4;

    /**
     * {@code options} with {@code decode=auto} resolved from what this machine has: {@code cpu} without an NVIDIA
     * driver, a device or NVDEC's library; {@code hybrid} with NVDEC and 4+ cores; {@code nvdec} with fewer. Other
     * modes are returned as they are.
     */
    public static LoaderOptions resolve(LoaderOptions options) {
        if (options.decode().device() != DecodeDevice.AUTO) {
            return options;
        }
        DecodeDevice resolved = DecodeDevice.CPU;
        if (Cuda.available()) {
            try {
                NvdecCodecs.requireDecoderLibrary();
                resolved = Runtime.getRuntime().availableProcessors() >= HYBRID_FROM_CORES ? DecodeDevice.HYBRID
                        : DecodeDevice.NVDEC;
            } catch (GpuUnavailableException e) {
                resolved = DecodeDevice.CPU;
            }
        }
        return options.toBuilder().decodeOn(resolved, options.decode().nvdecSessions()).build();
    }
}
