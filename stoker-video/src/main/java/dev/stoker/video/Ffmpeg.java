package dev.stoker.video;

import static org.bytedeco.ffmpeg.global.avutil.av_strerror;

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

    /** Returns {@code code} when non-negative, else throws a {@link VideoException}. */
    static int check(int code, String path, String operation, FailureReason reason) {
        if (code < 0) {
            throw new VideoException(path, operation, reason, describe(code));
        }
        return code;
    }
}
