package dev.stoker.gpu;

import dev.stoker.video.FailureReason;
import dev.stoker.video.Video;
import dev.stoker.video.VideoException;
import java.util.function.Supplier;

/**
 * The CPU decoder an NVDEC decoder hands the videos NVDEC cannot decode to: made on first need, since most runs never
 * need it, and closed with its owner. Without a factory the fallback is off and those videos fail as
 * {@code unsupported-codec}.
 */
final class CpuFallback implements AutoCloseable {
    private final Supplier<? extends DeviceClipDecoder> factory;
    private DeviceClipDecoder decoder;

    /** @param factory makes the CPU decoder (on first need); null: the fallback is off */
    CpuFallback(Supplier<? extends DeviceClipDecoder> factory) {
        this.factory = factory;
    }

    /**
     * The decoder for {@code video}, which NVDEC cannot decode because of {@code reason}.
     *
     * @throws VideoException (reason {@code unsupported-codec}) when the fallback is off
     */
    DeviceClipDecoder decoderFor(Video video, String reason) {
        if (factory == null) {
            throw new VideoException(video.info().path(), VideoException.Operation.NVDEC, FailureReason.UNSUPPORTED_CODEC,
                    reason + "; CPU fallback is off");
        }
        if (decoder == null) {
            decoder = factory.get();
        }
        return decoder;
    }

    @Override
    public void close() {
        if (decoder != null) {
            decoder.close();
        }
    }
}
