package dev.stoker.gpu;

import static org.bytedeco.ffmpeg.global.avcodec.av_bsf_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_bsf_flush;
import static org.bytedeco.ffmpeg.global.avcodec.av_bsf_free;
import static org.bytedeco.ffmpeg.global.avcodec.av_bsf_get_by_name;
import static org.bytedeco.ffmpeg.global.avcodec.av_bsf_init;
import static org.bytedeco.ffmpeg.global.avcodec.av_bsf_receive_packet;
import static org.bytedeco.ffmpeg.global.avcodec.av_bsf_send_packet;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_unref;
import static org.bytedeco.ffmpeg.global.avutil.AVMEDIA_TYPE_VIDEO;

import dev.stoker.video.FailureReason;
import dev.stoker.video.Ffmpeg;
import dev.stoker.video.FfmpegNatives;
import dev.stoker.video.VideoException;
import org.bytedeco.ffmpeg.avcodec.AVBSFContext;
import org.bytedeco.ffmpeg.avcodec.AVBitStreamFilter;
import org.bytedeco.ffmpeg.avcodec.AVCodecParameters;
import org.bytedeco.ffmpeg.avcodec.AVPacket;

/**
 * FFmpeg's {@code h264_mp4toannexb} / {@code hevc_mp4toannexb} bitstream filter on one video's packets: the
 * length-prefixed NAL units of MP4 and Matroska become the start-code stream NVDEC's parser reads, with the parameter
 * sets ahead of each IDR picture. A stream already in Annex B passes through unchanged. One per video; not
 * thread-safe. {@link #headers()} is the converted out-of-band headers, which the parser is fed after each flush
 * (as FFmpeg's {@code cuviddec} and torchcodec do), so that a range starting at a keyframe that is not an IDR
 * picture still finds its parameter sets.
 */
final class AnnexBFilter implements AutoCloseable {
    /** AVERROR(EAGAIN) on Linux, which the presets do not export. */
    private static final int EAGAIN = -11;

    private final String path;
    private AVBSFContext context;
    private final AVPacket in = av_packet_alloc();
    private final AVPacket out = av_packet_alloc();
    private final Ffmpeg.PacketData data = new Ffmpeg.PacketData();
    private boolean holdingOutput;

    /**
     * @param filter    {@code h264_mp4toannexb} or {@code hevc_mp4toannexb}
     * @param codecId   FFmpeg's codec id of the stream
     * @param extradata the stream's out-of-band headers ({@code avcC}/{@code hvcC}, or nothing)
     */
    AnnexBFilter(String path, String filter, int codecId, byte[] extradata) {
        FfmpegNatives.ready();
        this.path = path;
        AVBitStreamFilter bsf = av_bsf_get_by_name(filter);
        if (bsf == null || bsf.isNull()) {
            close();
            throw new VideoException(path, VideoException.Operation.NVDEC, FailureReason.INTERNAL, "this FFmpeg build has no " + filter
                    + " bitstream filter");
        }
        AVBSFContext ctx = new AVBSFContext(null);
        check(av_bsf_alloc(bsf, ctx), "av_bsf_alloc");
        context = ctx;
        AVCodecParameters parameters = ctx.par_in();
        parameters.codec_type(AVMEDIA_TYPE_VIDEO);
        parameters.codec_id(codecId);
        Ffmpeg.setExtradata(parameters, extradata);
        check(av_bsf_init(ctx), "av_bsf_init (" + filter + ")");
    }

    /** The converted headers (parameter sets with start codes); empty when the stream carries them in-band only. */
    byte[] headers() {
        return Ffmpeg.extradata(context.par_out());
    }

    /**
     * Filters the packet of {@code size} bytes at {@code address}; the output is {@link #outputAddress()} and
     * {@link #outputSize()} until the next call. Returns false when the filter held the packet back (it does not, for
     * these filters, but the API allows it).
     */
    boolean filter(long address, int size, long pts, boolean keyframe) {
        releaseOutput();
        data.point(address);
        in.data(data);
        in.size(size);
        in.pts(pts);
        in.dts(pts);
        in.flags(keyframe ? 1 : 0);
        int sent = av_bsf_send_packet(context, in);
        // av_bsf_send_packet made its own reference (the packet was not reference-counted): drop ours.
        in.data(null);
        in.size(0);
        check(sent, "av_bsf_send_packet");
        int received = av_bsf_receive_packet(context, out);
        if (received == EAGAIN) {
            return false;
        }
        check(received, "av_bsf_receive_packet");
        holdingOutput = true;
        return true;
    }

    long outputAddress() {
        return out.data().address();
    }

    int outputSize() { return out.size(); }

    /** Forgets what the filter holds (at a seek: the next packet starts a new range). */
    void flush() {
        releaseOutput();
        av_bsf_flush(context);
    }

    private void releaseOutput() {
        if (holdingOutput) {
            av_packet_unref(out);
            holdingOutput = false;
        }
    }

    private void check(int result, String call) {
        if (result < 0) {
            throw new VideoException(path, VideoException.Operation.NVDEC, FailureReason.CORRUPT, call + ": " + Ffmpeg.errorText(result));
        }
    }

    @Override
    public void close() {
        releaseOutput();
        av_packet_free(in);
        av_packet_free(out);
        if (context != null) {
            av_bsf_free(context);
            context = null;
        }
    }
}
