package dev.stoker.gpu;

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
     * NVDEC sessions by default: up to 4, no more than cores, since each session's worker thread also runs
     * the decoder's bitstream parsing on the CPU. An H100 has 7 NVDEC engines: raise it there.
     */
    public static int defaultSessions(int cores) {
        return Math.max(1, Math.min(4, cores));
    }
}
