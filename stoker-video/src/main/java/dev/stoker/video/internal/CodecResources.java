package dev.stoker.video.internal;

import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.avcodec_free_context;
import static org.bytedeco.ffmpeg.global.avutil.av_frame_free;

import org.bytedeco.ffmpeg.avcodec.AVCodecContext;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avutil.AVFrame;

/**
 * Frees the native trio every encoder and decoder owns: its codec context, its frame and its packet.
 * Shared by the decoders here and the encoders of other modules, so each one frees them in the same order
 * (packet, frame, context) and tolerates the ones an interrupted set-up never allocated.
 */
public final class CodecResources {
    private CodecResources() {
    }

    /** Frees each argument that is not null; the caller drops its references afterwards. */
    public static void free(AVCodecContext context, AVFrame frame, AVPacket packet) {
        if (packet != null) {
            av_packet_free(packet);
        }
        if (frame != null) {
            av_frame_free(frame);
        }
        if (context != null) {
            avcodec_free_context(context);
        }
    }
}
