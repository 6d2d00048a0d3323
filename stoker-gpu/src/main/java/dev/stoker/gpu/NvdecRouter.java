package dev.stoker.gpu;

import dev.stoker.video.Video;
import java.util.List;
import java.util.function.Supplier;

/**
 * Where a video's clips are decoded on an NVDEC loader's worker: by Stoker's own {@link NvdecSession} (H.264, HEVC), by
 * FFmpeg's decoder with its CUDA hwaccel (the codecs the session does not cover: {@link NvdecDecoder}), or on the CPU
 * when NVDEC cannot decode the video at all, known before (codec, pixel format, rotation, minimum size) or found while
 * decoding ({@link NotOnNvdec}): with the reason, or as a failure {@code unsupported-codec} when the fallback is off.
 * Each result says which path decoded it. One per worker thread, closing what it made.
 */
final class NvdecRouter implements DeviceClipDecoder {
    private final NvdecSession session;
    private final Supplier<? extends DeviceClipDecoder> elsewhereFactory;
    private final CpuFallback cpu;
    private DeviceClipDecoder elsewhere;

    /**
     * @param elsewhere makes the decoder for what the session does not cover (on first need)
     * @param cpu       makes the CPU decoder for what NVDEC cannot decode (on first need); null: those videos fail
     */
    NvdecRouter(NvdecSession session, Supplier<? extends DeviceClipDecoder> elsewhere,
                Supplier<? extends DeviceClipDecoder> cpu) {
        this.session = session;
        this.elsewhereFactory = elsewhere;
        this.cpu = new CpuFallback(cpu);
    }

    @Override
    public Decoded decode(Video video, List<Target> clips) {
        String unsupported = NvdecCodecs.unsupportedReason(video.info());
        if (unsupported != null) {
            return onCpu(video, clips, unsupported);
        }
        if (!NvdecSession.covers(video)) {
            if (elsewhere == null) {
                elsewhere = elsewhereFactory.get();
            }
            return elsewhere.decode(video, clips).on(DecodePath.FFMPEG_NVDEC);
        }
        try {
            return session.decode(video, clips);
        } catch (NotOnNvdec e) {
            return onCpu(video, clips, e.getMessage());
        }
    }

    private Decoded onCpu(Video video, List<Target> clips, String reason) {
        return new Decoded(cpu.decoderFor(video, reason).decode(video, clips).clips(), reason, DecodePath.CPU_FALLBACK);
    }

    NvdecSession session() { return session; }

    @Override
    public void close() {
        Closeables.closeAll(elsewhere, cpu, session);
    }
}
