package dev.stoker.video.loader.internal;

import dev.stoker.video.Video;
import dev.stoker.video.VideoPackets;
import dev.stoker.video.internal.PacketColumns;
import java.lang.foreign.MemorySegment;

/**
 * {@link OpenedVideo}: the task, the clip starts, and the demuxed video as packets
 * ({@link Video#asPackets}: payloads, pts, dts, durations, flags, codec parameters, frame timeline). The
 * receiving side rebuilds the video with {@link Video#copyFromPackets}: one copy of the payloads out of
 * the ring into memory the video owns, freed when the item is closed; no demuxing again, and the same
 * frames, timestamps and pixels as the video that was opened.
 */
public final class OpenedVideoCodec extends CursorCodec<OpenedVideo> {
    private final LoaderCodecs.VideoTaskCodec tasks = new LoaderCodecs.VideoTaskCodec();

    @Override
    void write(OpenedVideo opened, CodecCursor out) {
        VideoPackets p = opened.video().asPackets();
        out.putItem(tasks, opened.task());
        out.putDoubles(opened.clipStarts());
        out.putString(p.codecName());
        out.putString(p.pixelFormat());
        out.putInt(p.width());
        out.putInt(p.height());
        out.putInt(p.timeBaseNumerator());
        out.putInt(p.timeBaseDenominator());
        out.putDouble(p.framesPerSecond());
        out.putBytes(p.extradata());
        VideoPackets.Demuxed d = p.demuxed();
        out.putString(d.container());
        out.putInt(d.streamIndex());
        out.putInt(d.rotationDegrees());
        out.putDouble(d.startTimeSeconds());
        out.putInt(d.indexComplete() ? 1 : 0);
        VideoPackets.CodecDetails c = d.codec();
        out.putInts(new int[] {c.codecTag(), c.bitsPerCodedSample(), c.bitsPerRawSample(), c.profile(), c.level(),
                c.fieldOrder(), c.colorRange(), c.colorPrimaries(), c.colorTransfer(), c.colorSpace(),
                c.chromaLocation(), c.sampleAspectNumerator(), c.sampleAspectDenominator(), c.frameRateNumerator(),
                c.frameRateDenominator(), c.videoDelay()});
        out.putLong(c.bitRate());
        out.putLongs(p.pts());
        out.putLongs(d.dts());
        out.putLongs(p.durations());
        out.putInts(d.flags());
        out.putLongs(p.offsets());
        out.putInts(p.sizes());
        out.putInt(d.frameTimestamps() == null ? 0 : 1);
        if (d.frameTimestamps() != null) {
            out.putLongs(d.frameTimestamps());
        }
        out.putSegment(p.data());
    }

    @Override
    public OpenedVideo decode(MemorySegment source) {
        CodecCursor in = new CodecCursor(source);
        VideoTask task = in.getItem(tasks);
        double[] clipStarts = in.getDoubles();
        String codecName = in.getString();
        String pixelFormat = in.getString();
        int width = in.getInt();
        int height = in.getInt();
        int timeBaseNumerator = in.getInt();
        int timeBaseDenominator = in.getInt();
        double framesPerSecond = in.getDouble();
        byte[] extradata = in.getBytes();
        String container = in.getString();
        int streamIndex = in.getInt();
        int rotation = in.getInt();
        double startTime = in.getDouble();
        boolean complete = in.getInt() != 0;
        int[] c = in.getInts();
        VideoPackets.CodecDetails details = new VideoPackets.CodecDetails(c[0], in.getLong(), c[1], c[2], c[3], c[4],
                c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12], c[13], c[14], c[15]);
        long[] pts = in.getLongs();
        long[] dts = in.getLongs();
        long[] durations = in.getLongs();
        int[] flags = in.getInts();
        long[] offsets = in.getLongs();
        int[] sizes = in.getInts();
        long[] frameTimestamps = in.getInt() != 0 ? in.getLongs() : null;
        MemorySegment data = in.getSegment();
        VideoPackets packets = new VideoPackets(codecName, width, height, pixelFormat, timeBaseNumerator,
                timeBaseDenominator, framesPerSecond, extradata, data, pts, durations,
                PacketColumns.keyframes(flags, flags.length), offsets, sizes,
                new VideoPackets.Demuxed(container, streamIndex, rotation, startTime, complete, dts, flags,
                        frameTimestamps, details));
        return new OpenedVideo(task, Video.copyFromPackets(task.entry().path().toString(), packets), clipStarts);
    }
}
