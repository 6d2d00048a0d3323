package dev.stoker.video;

import static org.bytedeco.ffmpeg.global.avutil.av_mallocz;
import static org.bytedeco.ffmpeg.global.avutil.av_strerror;

import org.bytedeco.ffmpeg.avcodec.AVCodecParameters;
import org.bytedeco.javacpp.BytePointer;

/** Error-code plumbing shared by the native wrappers (and, for {@link #errorText}, other modules' FFmpeg code). */
public final class Ffmpeg {
    /** AVERROR(EAGAIN) on Linux, which the presets do not export. */
    static final int EAGAIN = -11;

    private Ffmpeg() {
    }

    /** FFmpeg's text for an error code, cut at the first NUL (JavaCPP returns the whole buffer). */
    public static String errorText(int code) {
        try (BytePointer buffer = new BytePointer(256)) {
            buffer.fill(0);
            if (av_strerror(code, buffer, buffer.capacity()) < 0) {
                return "error " + code;
            }
            byte[] bytes = new byte[256];
            buffer.get(bytes);
            int end = 0;
            while (end < bytes.length && bytes[end] != 0) {
                end++;
            }
            return new String(bytes, 0, end, java.nio.charset.StandardCharsets.UTF_8) + " (" + code + ")";
        }
    }

    /** Error text plus FFmpeg's last logged error line on this thread, when there is one. */
    static String describe(int code) {
        String text = errorText(code);
        String log = FfmpegLog.lastError();
        return log == null ? text : text + "; ffmpeg: " + log;
    }

    /** A stream's out-of-band headers ({@code avcC}, {@code hvcC}, ...), copied; empty when it has none. */
    public static byte[] extradata(AVCodecParameters parameters) {
        int size = parameters.extradata_size();
        if (size <= 0 || parameters.extradata() == null || parameters.extradata().isNull()) {
            return new byte[0];
        }
        byte[] bytes = new byte[size];
        parameters.extradata().get(bytes, 0, size);
        return bytes;
    }

    /**
     * Gives {@code parameters} a copy of {@code extradata} in FFmpeg's own memory (the parameters free it), padded as
     * FFmpeg's readers require; nothing when it is empty.
     */
    public static void setExtradata(AVCodecParameters parameters, byte[] extradata) {
        if (extradata.length > 0) {
            BytePointer headers = new BytePointer(av_mallocz(extradata.length + PacketStore.PADDING_BYTES));
            headers.put(extradata, 0, extradata.length);
            parameters.extradata(headers);
            parameters.extradata_size(extradata.length);
        }
    }

    /**
     * A BytePointer whose address is set directly, so that pointing a packet at bytes that live elsewhere (a packet
     * store, a mapped shard) allocates nothing.
     */
    public static final class PacketData extends BytePointer {
        /** Points at {@code target}; the bytes stay the owner's. */
        public void point(long target) {
            this.address = target;
            this.position = 0;
            this.limit = 0;
            this.capacity = 0;
        }
    }

    /** Returns {@code code} when non-negative, else throws a {@link VideoException}. */
    static int check(int code, String path, VideoException.Operation operation, FailureReason reason) {
        if (code < 0) {
            throw new VideoException(path, operation, reason, describe(code));
        }
        return code;
    }
}
