package dev.stoker.video;

import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_FLAG_QSCALE;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_alloc_context3;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_find_encoder_by_name;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_free_context;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_open2;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_receive_packet;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_send_frame;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_RANGE_JPEG;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_RGB24;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_YUVJ420P;
import static org.bytedeco.ffmpeg.global.avutil.FF_QP2LAMBDA;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_alloc;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_free;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_get_buffer;
import static org.bytedeco.ffmpeg.global.avutil.av_make_q;
import static org.bytedeco.ffmpeg.global.swscale.SWS_BILINEAR;
import static org.bytedeco.ffmpeg.global.swscale.sws_freeContext;
import static org.bytedeco.ffmpeg.global.swscale.sws_getContext;
import static org.bytedeco.ffmpeg.global.swscale.sws_scale;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bytedeco.ffmpeg.avcodec.AVCodec;
import org.bytedeco.ffmpeg.avcodec.AVCodecContext;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.bytedeco.ffmpeg.avutil.AVFrame;
import org.bytedeco.ffmpeg.swscale.SwsContext;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.DoublePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.PointerPointer;

/**
 * Test videos stored as folders of images, one a frame: {@link IndexedVideos}' frames (each carries its index), as
 * JPEG (the bundled FFmpeg's mjpeg encoder) or PNG ({@link PngWriter}, lossless), named {@code PREFIX00001.EXT} on.
 */
public final class FrameFolders {
    public static final int WIDTH = IndexedVideos.WIDTH;
    public static final int HEIGHT = IndexedVideos.HEIGHT;

    /** The image kinds a folder may hold. */
    public enum Kind {
        JPEG("jpg"), PNG("png");

        final String extension;

        Kind(String extension) {
            this.extension = extension;
        }
    }

    private FrameFolders() {
    }

    /** Writes frames 0 to {@code frames - 1} into {@code folder} (made if missing) as {@code prefix + (index + 1)}. */
    public static Path write(Path folder, String prefix, int frames, Kind kind) throws IOException {
        Files.createDirectories(folder);
        for (int i = 0; i < frames; i++) {
            writeFrame(folder.resolve(String.format("%s%05d.%s", prefix, i + 1, kind.extension)), rgb(i), WIDTH, HEIGHT, kind);
        }
        return folder;
    }

    /** Frame {@code index}'s RGB24 pixels, {@link #WIDTH} × {@link #HEIGHT}. */
    public static byte[] rgb(int index) {
        return IndexedVideos.frame(index);
    }

    /** The index the frame at {@code offset} of {@code pixels}, scaled from the whole picture, shows. */
    public static int readIndex(MemorySegment pixels, long offset, int width, int height) {
        return IndexedVideos.readIndex(pixels, offset, width, height);
    }

    /** Writes {@code rgb} ({@code width × height}) as one image. */
    public static void writeFrame(Path file, byte[] rgb, int width, int height, Kind kind) throws IOException {
        if (kind == Kind.PNG) {
            PngWriter.writeRgb(file, MemorySegment.ofArray(rgb), 0, width, height);
        } else {
            Files.write(file, jpeg(rgb, width, height));
        }
    }

    /** {@code rgb} as a baseline JPEG (4:2:0, full range, quantiser 2: the blocks survive). */
    public static byte[] jpeg(byte[] rgb, int width, int height) {
        FfmpegNatives.ready();
        AVCodec codec = avcodec_find_encoder_by_name("mjpeg");
        AVCodecContext context = avcodec_alloc_context3(codec);
        AVFrame frame = av_frame_alloc();
        AVPacket packet = av_packet_alloc();
        SwsContext sws = sws_getContext(width, height, AV_PIX_FMT_RGB24, width, height, AV_PIX_FMT_YUVJ420P, SWS_BILINEAR,
                null, null, (DoublePointer) null);
        try {
            context.width(width);
            context.height(height);
            context.pix_fmt(AV_PIX_FMT_YUVJ420P);
            context.color_range(AVCOL_RANGE_JPEG);
            context.time_base(av_make_q(1, 30));
            context.flags(context.flags() | AV_CODEC_FLAG_QSCALE);
            context.global_quality(2 * FF_QP2LAMBDA);
            check(avcodec_open2(context, codec, (AVDictionary) null), "open the mjpeg encoder");
            frame.format(AV_PIX_FMT_YUVJ420P);
            frame.width(width);
            frame.height(height);
            frame.color_range(AVCOL_RANGE_JPEG);
            frame.quality(2 * FF_QP2LAMBDA);
            check(av_frame_get_buffer(frame, 0), "allocate a frame");
            BytePointer source = new BytePointer(rgb);
            PointerPointer<BytePointer> planes = new PointerPointer<>(4);
            planes.put(0, source);
            IntPointer strides = new IntPointer(width * 3, 0, 0, 0);
            check(sws_scale(sws, planes, strides, 0, height, frame.data(), frame.linesize()), "convert to 4:2:0");
            frame.pts(0);
            check(avcodec_send_frame(context, frame), "encode");
            check(avcodec_receive_packet(context, packet), "receive the JPEG");
            byte[] out = new byte[packet.size()];
            packet.data().get(out);
            return out;
        } finally {
            sws_freeContext(sws);
            av_packet_free(packet);
            av_frame_free(frame);
            avcodec_free_context(context);
        }
    }

    private static void check(int result, String what) {
        if (result < 0) {
            throw new IllegalStateException(what + " failed: " + result);
        }
    }
}
