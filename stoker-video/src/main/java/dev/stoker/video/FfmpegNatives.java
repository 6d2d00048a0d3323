package dev.stoker.video;

import java.util.concurrent.atomic.AtomicBoolean;
import org.bytedeco.ffmpeg.global.avcodec;
import org.bytedeco.ffmpeg.global.avformat;
import org.bytedeco.ffmpeg.global.swscale;
import org.bytedeco.javacpp.Loader;

/**
 * Loads FFmpeg's native libraries ahead of the first file. JavaCPP loads them on first use, which costs
 * a quarter of a second on a small VM (checking its unpacked cache, then {@code dlopen} of avutil,
 * avcodec, avformat and swscale and their JNI glue); done inside the first demux task, that quarter
 * second sits on the first batch's critical path while the other core is idle. Started when a loader
 * opens, it overlaps with building the pipeline and reading the first files instead.
 */
public final class FfmpegNatives {
    private static final AtomicBoolean STARTED = new AtomicBoolean();

    private FfmpegNatives() {
    }

    /**
     * Starts loading the natives on a daemon thread, once per JVM; returns at once. A stage that needs
     * them before the thread is done waits in class initialisation, as it would have loaded them itself.
     * A failure here is left for that first real use to report, with its file's path.
     */
    public static void preloadInBackground() {
        if (STARTED.compareAndSet(false, true)) {
            Thread.ofPlatform().daemon().name("stoker-ffmpeg-load").start(FfmpegNatives::load);
        }
    }

    private static void load() {
        try {
            Loader.load(avcodec.class); // avutil comes with it
            Loader.load(avformat.class);
            Loader.load(swscale.class);
            FfmpegLog.install();
        } catch (Throwable ignored) {
            // The stage that first calls FFmpeg reports it, naming the file it was opening.
        }
    }
}
