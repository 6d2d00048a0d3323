package dev.stoker.gpu;

import static org.bytedeco.ffmpeg.global.avcodec.avcodec_descriptor_get_by_name;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_RANGE_JPEG;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_RANGE_MPEG;

import dev.stoker.video.VideoPackets;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * One video's packets into an NVDEC parser: each made Annex B ({@link AnnexBFilter}) and parsed as one picture with
 * its pts; a range starts with the stream's headers, and ends with an end-of-stream packet, which makes the parser
 * display what it holds and wait for a new stream (how the parser is flushed without being destroyed). While a
 * packet is parsed, {@link #currentPacket()} is its index, for the decode callback to know whose picture it gets.
 */
final class NvdecFeed implements AutoCloseable {
    private final NvdecApi api;
    private final long parser;
    private final VideoPackets packets;
    private final AnnexBFilter filter;
    private final Arena arena;
    private final MemorySegment headers;
    private int currentPacket = -1;
    long flushes;

    /** @param codec the parser's {@code cudaVideoCodec}: H.264 or HEVC */
    NvdecFeed(NvdecApi api, long parser, int codec, String path, String codecName, VideoPackets packets) {
        this.api = api;
        this.parser = parser;
        this.packets = packets;
        this.filter = new AnnexBFilter(path, codec == CuvidStructs.CODEC_H264 ? "h264_mp4toannexb" : "hevc_mp4toannexb",
                avcodec_descriptor_get_by_name(codecName).id(), packets.extradata());
        this.arena = Arena.ofConfined();
        try {
            byte[] bytes = filter.headers();
            // Zero padding after the headers, as after every packet: parsers may read a little ahead.
            headers = bytes.length == 0 ? null
                    : arena.allocateFrom(ValueLayout.JAVA_BYTE, Arrays.copyOf(bytes, bytes.length + VideoPackets.PADDING_BYTES))
                            .asSlice(0, bytes.length);
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /** Starts a range: what the filter held is forgotten, and the parser is given the stream's headers. */
    void startRange() {
        filter.flush();
        if (headers != null) {
            api.parse(parser, headers.address(), headers.byteSize(), 0, 0);
        }
    }

    /** Parses packet {@code packet} (decode order) as one picture with its pts. */
    void feed(int packet) {
        if (!filter.filter(packets.data().address() + packets.offsets()[packet], packets.sizes()[packet],
                packets.pts()[packet], packets.keyframes()[packet])) {
            return;
        }
        currentPacket = packet;
        try {
            api.parse(parser, filter.outputAddress(), filter.outputSize(),
                    NvdecApi.PACKET_TIMESTAMP | NvdecApi.PACKET_END_OF_PICTURE, packets.pts()[packet]);
        } finally {
            currentPacket = -1;
        }
    }

    /** Ends the range: the parser displays the pictures it holds and expects a new stream. */
    void endOfStream() {
        api.parse(parser, 0, 0, NvdecApi.PACKET_END_OF_STREAM, 0);
        flushes++;
    }

    /** The packet being parsed, or -1. */
    int currentPacket() { return currentPacket; }

    /** The kernel's colour flags: the stream's own signal where it gives one ({@code format}), else the container's. */
    static int colourOf(VideoPackets packets, NvdecApi.VideoFormat format) {
        VideoPackets.CodecDetails details = packets.demuxed() == null ? null : packets.demuxed().codec();
        int matrix = format == null || format.matrix() == 2 ? (details == null ? 2 : details.colorSpace()) : format.matrix();
        boolean full = (format != null && format.fullRange()) || packets.pixelFormat().startsWith("yuvj")
                || (details != null && details.colorRange() == AVCOL_RANGE_JPEG);
        return Nv12Kernel.colourFlags(matrix, full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG);
    }

    @Override
    public void close() {
        try {
            filter.close();
        } finally {
            arena.close();
        }
    }
}
