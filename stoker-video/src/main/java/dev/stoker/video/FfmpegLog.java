package dev.stoker.video;

import static org.bytedeco.ffmpeg.global.avutil.AV_LOG_ERROR;
import static org.bytedeco.ffmpeg.global.avutil.av_log_set_level;
import static org.bytedeco.ffmpeg.global.avutil.setLogCallback;

import org.bytedeco.ffmpeg.avutil.LogCallback;
import org.bytedeco.javacpp.BytePointer;

/**
 * Routes FFmpeg's log into Java instead of stderr: a loader opening thousands of files must not
 * spray per-file warnings, yet the last error FFmpeg printed is often the only useful detail
 * ("moov atom not found"), so it is kept per thread and appended to {@link VideoException}s.
 */
final class FfmpegLog {
    private static final ThreadLocal<String> LAST_ERROR = new ThreadLocal<>();

    // Held in a static field for the JVM's lifetime: native code calls it at any time, and
    // JavaCPP callbacks must stay strongly reachable to remain valid.
    private static final LogCallback CALLBACK = new LogCallback() {
        @Override
        public void call(int level, BytePointer message) {
            try {
                if (level <= AV_LOG_ERROR && message != null && !message.isNull()) {
                    String line = message.getString().strip();
                    if (!line.isEmpty()) {
                        LAST_ERROR.set(line);
                    }
                }
            } catch (Throwable ignored) {
                // Never let an exception cross back into native code.
            }
        }
    };

    static {
        av_log_set_level(AV_LOG_ERROR);
        setLogCallback(CALLBACK);
    }

    private FfmpegLog() {
    }

    /** Ensures the callback is installed; cheap after the first call. */
    static void install() {
        // Class initialisation does the work.
    }

    /** Forgets this thread's last line, so a later failure does not report a stale one. */
    static void clear() {
        LAST_ERROR.remove();
    }

    /** The last error FFmpeg logged on this thread, or null. */
    static String lastError() { return LAST_ERROR.get(); }
}
