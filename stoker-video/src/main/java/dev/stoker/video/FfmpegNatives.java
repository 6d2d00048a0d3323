package dev.stoker.video;

import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_H264;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_alloc_context3;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_find_decoder;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_free_context;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_open2;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_parameters_free;
import static org.bytedeco.ffmpeg.global.avformat.avformat_alloc_context;
import static org.bytedeco.ffmpeg.global.avformat.avformat_free_context;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_RGB24;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_YUV420P;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_alloc;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_free;
import static org.bytedeco.ffmpeg.global.swscale.SWS_BILINEAR;
import static org.bytedeco.ffmpeg.global.swscale.sws_freeContext;
import static org.bytedeco.ffmpeg.global.swscale.sws_getContext;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bytedeco.ffmpeg.avcodec.AVCodec;
import org.bytedeco.ffmpeg.avcodec.AVCodecContext;
import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.swscale.SwsContext;
import org.bytedeco.javacpp.DoublePointer;

/**
 * FFmpeg's native libraries, loaded and warmed once per JVM, by one thread. Through JavaCPP this is not
 * a matter of a few {@code dlopen}s: every native struct and callback type is a Java class whose
 * initialiser goes through {@code Loader.load}, and a first demux, decode and resize set off a few hundred
 * of them, about 0.3 s of a 2-core machine before the first clip can decode. A loader calls
 * {@link #warmUpInBackground()} as it opens, so that this overlaps the pipeline's own setup; every entry
 * point into FFmpeg ({@link Video#open}, {@link ClipDecoder}'s constructors, the encoders) calls
 * {@link #ready()} before it touches a JavaCPP class.
 *
 * <p>The waiting is not optional. JavaCPP's class initialisers running on two threads at once can
 * deadlock: one thread in {@code Pointer}'s initialiser waiting for a library class that another thread is
 * initialising, which waits for {@code Pointer} (seen once in four test-suite runs, when a warm-up ran
 * beside a loader's demux worker). So while the warm-up runs, nothing else may start on FFmpeg; after it,
 * the classes every path shares are initialised and threads no longer race for them. With no warm-up
 * started, the first {@link #ready()} does the work on its own thread, as a first use always did.
 */
public final class FfmpegNatives {
    private static final AtomicBoolean STARTED = new AtomicBoolean();
    private static final CompletableFuture<Void> WARM = new CompletableFuture<>();
    private static volatile boolean warm;

    private FfmpegNatives() { }

    /** Starts loading and warming FFmpeg on a daemon thread, once per JVM; returns at once. */
    public static void warmUpInBackground() {
        if (STARTED.compareAndSet(false, true)) {
            Thread.ofPlatform().daemon().name("stoker-ffmpeg-warm-up").start(FfmpegNatives::warmUp);
        }
    }

    /**
     * Returns once FFmpeg is loaded and warm (at once after that): the warm-up started elsewhere, or this
     * thread's own when none was.
     *
     * @throws IllegalStateException if the native libraries could not be loaded
     */
    public static void ready() {
        if (warm) {
            return;
        }
        if (STARTED.compareAndSet(false, true)) {
            warmUp();
        }
        try {
            WARM.join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new IllegalStateException("FFmpeg's native libraries did not load: " + cause, cause);
        }
    }

    private static void warmUp() {
        try {
            warmUpHere();
            warm = true;
            WARM.complete(null);
        } catch (Throwable t) {
            WARM.completeExceptionally(t);
        }
    }

    /**
     * What a first demux, decode and convert would initialise, in one order on one thread: the libraries,
     * the log callback, the in-memory input's callbacks, the demuxer's and decoder's structs with an H.264
     * decoder opened (FFmpeg builds its static tables then), a frame and a scaler.
     */
    private static void warmUpHere() throws ClassNotFoundException {
        FfmpegLog.install();
        Class.forName(MemoryInput.class.getName(), true, FfmpegNatives.class.getClassLoader());
        AVFormatContext format = avformat_alloc_context();
        avformat_free_context(format);
        av_packet_free(av_packet_alloc());
        avcodec_parameters_free(avcodec_parameters_alloc());
        AVCodec h264 = avcodec_find_decoder(AV_CODEC_ID_H264);
        AVCodecContext codec = avcodec_alloc_context3(h264);
        if (h264 != null && codec != null) {
            avcodec_open2(codec, h264, (AVDictionary) null);
        }
        avcodec_free_context(codec);
        av_frame_free(av_frame_alloc());
        SwsContext scaler = sws_getContext(64, 64, AV_PIX_FMT_YUV420P, 32, 32, AV_PIX_FMT_RGB24, SWS_BILINEAR, null, null,
                (DoublePointer) null);
        sws_freeContext(scaler);
    }
}
