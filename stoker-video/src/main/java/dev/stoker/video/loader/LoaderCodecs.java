package dev.stoker.video.loader;

import dev.stoker.pipeline.subprocess.ItemCodec;
import dev.stoker.pipeline.subprocess.ItemCodecs;
import dev.stoker.video.Video;
import dev.stoker.video.VideoPackets;
import dev.stoker.video.dataset.VideoEntry;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import dev.stoker.video.DecodedClip;
import dev.stoker.video.batch.BatchCollator;
import dev.stoker.video.batch.BatchLayout;
import dev.stoker.video.batch.BatchPool;
import dev.stoker.video.batch.BatchShape;
import dev.stoker.video.batch.ClipBatch;
import dev.stoker.video.batch.ClipInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * Codecs for the loader's items across the process boundary: the source's {@link VideoTask}s, the
 * fetch stage's {@link FetchedVideo}s (task, then the file's bytes: one copy each way), the demux
 * stage's {@link OpenedVideo}s (task, clip starts, then the video as packets: {@link OpenedVideoCodec}),
 * converted clips ({@link LoadedClipCodec}) and collated batches ({@link CollatedBatchCodec}); the last two
 * decode into pooled off-heap buffers of the receiving process.
 */
public final class LoaderCodecs {
    private LoaderCodecs() { }

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    // index, epoch, position, firstClip, label, then start and end (NaN = absent)
    private static final long FIXED_BYTES = 5 * 4 + 2 * 8;

    /** {@link VideoTask}: its entry (path, label, class name, range) and its place in the epoch. */
    public static final class VideoTaskCodec implements ItemCodec<VideoTask> {
        @Override
        public long encodedBytes(VideoTask task) {
            return FIXED_BYTES + 4 + ItemCodecs.PATH.encodedBytes(task.entry().path())
                    + ItemCodecs.STRING.encodedBytes(task.entry().className());
        }

        @Override
        public void encode(VideoTask task, MemorySegment target) {
            VideoEntry e = task.entry();
            target.set(INT, 0, task.index());
            target.set(INT, 4, task.epoch());
            target.set(INT, 8, task.position());
            target.set(INT, 12, task.firstClip());
            target.set(INT, 16, e.label());
            target.set(DOUBLE, 20, e.startSeconds().orElse(Double.NaN));
            target.set(DOUBLE, 28, e.endSeconds().orElse(Double.NaN));
            long pathBytes = ItemCodecs.PATH.encodedBytes(e.path());
            target.set(INT, FIXED_BYTES, (int) pathBytes);
            ItemCodecs.PATH.encode(e.path(), target.asSlice(FIXED_BYTES + 4, pathBytes));
            ItemCodecs.STRING.encode(e.className(), target.asSlice(FIXED_BYTES + 4 + pathBytes));
        }

        @Override
        public VideoTask decode(MemorySegment source) {
            int pathBytes = source.get(INT, FIXED_BYTES);
            Path path = ItemCodecs.PATH.decode(source.asSlice(FIXED_BYTES + 4, pathBytes));
            String className = ItemCodecs.STRING.decode(source.asSlice(FIXED_BYTES + 4 + pathBytes));
            double start = source.get(DOUBLE, 20);
            double end = source.get(DOUBLE, 28);
            VideoEntry entry = new VideoEntry(path, source.get(INT, 16), className,
                    Double.isNaN(start) ? OptionalDouble.empty() : OptionalDouble.of(start),
                    Double.isNaN(end) ? OptionalDouble.empty() : OptionalDouble.of(end));
            return new VideoTask(entry, source.get(INT, 0), source.get(INT, 4), source.get(INT, 8), source.get(INT, 12));
        }
    }

    /** {@link FetchedVideo}: the task, then the bytes. */
    public static final class FetchedVideoCodec implements ItemCodec<FetchedVideo> {
        private final VideoTaskCodec tasks = new VideoTaskCodec();

        @Override
        public long encodedBytes(FetchedVideo video) {
            return 4 + tasks.encodedBytes(video.task()) + video.bytes().length;
        }

        @Override
        public void encode(FetchedVideo video, MemorySegment target) {
            long taskBytes = tasks.encodedBytes(video.task());
            target.set(INT, 0, (int) taskBytes);
            tasks.encode(video.task(), target.asSlice(4, taskBytes));
            ItemCodecs.BYTES.encode(video.bytes(), target.asSlice(4 + taskBytes));
        }

        @Override
        public FetchedVideo decode(MemorySegment source) {
            int taskBytes = source.get(INT, 0);
            VideoTask task = tasks.decode(source.asSlice(4, taskBytes));
            return new FetchedVideo(task, ItemCodecs.BYTES.decode(source.asSlice(4 + taskBytes)));
        }
    }

    /**
     * {@link OpenedVideo}: the task, the clip starts, and the demuxed video as packets
     * ({@link Video#asPackets}: payloads, pts, dts, durations, flags, codec parameters, frame timeline). The
     * receiving side rebuilds the video with {@link Video#copyFromPackets}: one copy of the payloads out of
     * the ring into memory the video owns, freed when the item is closed; no demuxing again, and the same
     * frames, timestamps and pixels as the video that was opened.
     */
    public static final class OpenedVideoCodec implements ItemCodec<OpenedVideo> {
        private final VideoTaskCodec tasks = new VideoTaskCodec();

        @Override
        public long encodedBytes(OpenedVideo opened) {
            Cursor count = new Cursor(null);
            write(opened, opened.video().asPackets(), count);
            return count.at;
        }

        @Override
        public void encode(OpenedVideo opened, MemorySegment target) {
            write(opened, opened.video().asPackets(), new Cursor(target));
        }

        private void write(OpenedVideo opened, VideoPackets p, Cursor out) {
            long taskBytes = tasks.encodedBytes(opened.task());
            out.putInt((int) taskBytes);
            if (out.target != null) {
                tasks.encode(opened.task(), out.target.asSlice(out.at, taskBytes));
            }
            out.at += taskBytes;
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
            Cursor in = new Cursor(source);
            int taskBytes = in.getInt();
            VideoTask task = tasks.decode(source.asSlice(in.at, taskBytes));
            in.at += taskBytes;
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
            boolean[] keyframes = new boolean[flags.length];
            for (int i = 0; i < flags.length; i++) {
                keyframes[i] = (flags[i] & 1) != 0;  // AV_PKT_FLAG_KEY
            }
            VideoPackets packets = new VideoPackets(codecName, width, height, pixelFormat, timeBaseNumerator,
                    timeBaseDenominator, framesPerSecond, extradata, data, pts, durations, keyframes, offsets, sizes,
                    new VideoPackets.Demuxed(container, streamIndex, rotation, startTime, complete, dts, flags,
                            frameTimestamps, details));
            return new OpenedVideo(task, Video.copyFromPackets(task.entry().path().toString(), packets), clipStarts);
        }
    }

    /**
     * {@link LoadedClip}: task, place among its video's clips, start, the decoder's account of it
     * ({@link DecodedClip}) and its pixels. The receiving side ({@link #LoadedClipCodec(BatchPool)}) copies the
     * pixels into a one-clip buffer of its own pool, closed with the clip as any other: one copy out of the
     * ring, no allocation per clip for the pixels.
     */
    public static final class LoadedClipCodec implements ItemCodec<LoadedClip> {
        private final VideoTaskCodec tasks = new VideoTaskCodec();
        private final BatchPool clipBuffers;

        /** Encodes only (the child's side). */
        public LoadedClipCodec() {
            this.clipBuffers = null;
        }

        /** Decodes into buffers of {@code clipBuffers} (waiting for a free one: the consumer's backpressure). */
        public LoadedClipCodec(BatchPool clipBuffers) {
            this.clipBuffers = Objects.requireNonNull(clipBuffers, "clipBuffers");
        }

        @Override
        public long encodedBytes(LoadedClip clip) {
            Cursor count = new Cursor(null);
            write(clip, count);
            return count.at;
        }

        @Override
        public void encode(LoadedClip clip, MemorySegment target) {
            write(clip, new Cursor(target));
        }

        private void write(LoadedClip clip, Cursor out) {
            long taskBytes = tasks.encodedBytes(clip.task());
            out.putInt((int) taskBytes);
            if (out.target != null) {
                tasks.encode(clip.task(), out.target.asSlice(out.at, taskBytes));
            }
            out.at += taskBytes;
            out.putInt(clip.clip());
            out.putInt(clip.clipsOfVideo());
            out.putDouble(clip.startSeconds());
            DecodedClip d = clip.decoded();
            out.putString(d.path());
            out.putInt(d.width());
            out.putInt(d.height());
            out.putInts(d.frameIndices().stream().mapToInt(Integer::intValue).toArray());
            out.putDoubles(d.ptsSeconds().stream().mapToDouble(Double::doubleValue).toArray());
            out.putInt(d.decodedFrames());
            out.putInt(d.shifted() ? 1 : 0);
            out.putInt(d.repeatedFrames());
            out.putSegment(BatchCollator.slot(clip.pixels(), 0));
        }

        @Override
        public LoadedClip decode(MemorySegment source) {
            BatchPool pool = requirePool(clipBuffers, this);
            Cursor in = new Cursor(source);
            int taskBytes = in.getInt();
            VideoTask task = tasks.decode(source.asSlice(in.at, taskBytes));
            in.at += taskBytes;
            int clip = in.getInt();
            int clipsOfVideo = in.getInt();
            double start = in.getDouble();
            String path = in.getString();
            int width = in.getInt();
            int height = in.getInt();
            List<Integer> frameIndices = Arrays.stream(in.getInts()).boxed().toList();
            List<Double> pts = Arrays.stream(in.getDoubles()).boxed().toList();
            DecodedClip decoded = new DecodedClip(path, width, height, frameIndices, pts, in.getInt(), in.getInt() != 0,
                    in.getInt());
            MemorySegment pixels = in.getSegment();
            ClipBatch buffer = acquire(pool);
            try {
                MemorySegment slot = BatchCollator.slot(buffer, 0);
                if (pixels.byteSize() != slot.byteSize()) {
                    throw new IllegalStateException("clip of '" + path + "': " + pixels.byteSize() + " bytes from the child"
                            + " (expected: " + slot.byteSize() + ", a clip of " + pool.shape() + ")");
                }
                MemorySegment.copy(pixels, 0, slot, 0, pixels.byteSize());
                return new LoadedClip(task, clip, clipsOfVideo, start, buffer, decoded);
            } catch (RuntimeException | Error e) {
                buffer.close();
                throw e;
            }
        }
    }

    /**
     * {@link CollatedBatch}: geometry, where the batch ends in the epoch, each clip's {@link ClipInfo} (path,
     * label, frame times, frames decoded), then the pixels of the filled clips as they lie in the batch. The
     * receiving side ({@link #CollatedBatchCodec(BatchPool)}) copies them into a batch of its own pool (one
     * copy, no allocation for the pixels), which the consumer closes as any other: back to that pool, leaks
     * reported as any other.
     */
    public static final class CollatedBatchCodec implements ItemCodec<CollatedBatch> {
        private final BatchPool batches;

        /** Encodes only (the child's side). */
        public CollatedBatchCodec() {
            this.batches = null;
        }

        /** Decodes into batches of {@code batches} (waiting for a free one: the consumer's backpressure). */
        public CollatedBatchCodec(BatchPool batches) {
            this.batches = Objects.requireNonNull(batches, "batches");
        }

        @Override
        public long encodedBytes(CollatedBatch collated) {
            Cursor count = new Cursor(null);
            write(collated, collated.batch().clips(), count);
            return count.at;
        }

        @Override
        public void encode(CollatedBatch collated, MemorySegment target) {
            write(collated, collated.batch().clips(), new Cursor(target));
        }

        private static void write(CollatedBatch collated, List<ClipInfo> clips, Cursor out) {
            BatchShape shape = collated.batch().batchShape();
            out.putInts(new int[] {shape.clipsPerBatch(), shape.frames(), shape.height(), shape.width(), shape.channels(),
                    shape.layout().ordinal(), collated.epoch(), collated.position(), collated.clip(), collated.clipsOfVideo()});
            out.putInt(clips.size());
            for (ClipInfo c : clips) {
                out.putString(c.path().toString());
                out.putInt(c.label());
                out.putInt(c.framesDecoded());
                out.putDoubles(c.frameTimestampsSeconds());
            }
            out.putSegment(collated.batch().data());
        }

        @Override
        public CollatedBatch decode(MemorySegment source) {
            BatchPool pool = requirePool(batches, this);
            Cursor in = new Cursor(source);
            int[] g = in.getInts();
            BatchShape sent = new BatchShape(g[0], g[1], g[2], g[3], g[4], BatchLayout.values()[g[5]]);
            if (!sent.equals(pool.shape())) {
                throw new IllegalStateException("a batch of " + sent + " from the child (expected: " + pool.shape()
                        + ", this loader's batches)");
            }
            int n = in.getInt();
            List<ClipInfo> clips = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                Path path = Path.of(in.getString());
                int label = in.getInt();
                int framesDecoded = in.getInt();
                clips.add(new ClipInfo(path, label, in.getDoubles(), framesDecoded));
            }
            MemorySegment pixels = in.getSegment();
            ClipBatch batch = acquire(pool);
            try {
                BatchCollator.putAll(batch, pixels, clips);
                return new CollatedBatch(batch, g[6], g[7], g[8], g[9]);
            } catch (RuntimeException | Error e) {
                batch.close();
                throw e;
            }
        }
    }

    private static BatchPool requirePool(BatchPool pool, ItemCodec<?> codec) {
        if (pool == null) {
            throw new IllegalStateException(codec.name() + " made without a pool only encodes (expected: the constructor"
                    + " that takes the pool to decode into)");
        }
        return pool;
    }

    private static ClipBatch acquire(BatchPool pool) {
        try {
            return pool.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a buffer of " + pool.shape(), e);
        }
    }

    /**
     * Writes (or, over no segment, only counts) and reads length-prefixed fields in order. Arrays go with
     * one bulk copy each; nothing is aligned (the layouts are unaligned).
     */
    private static final class Cursor {
        private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
        final MemorySegment target;
        long at;

        Cursor(MemorySegment target) {
            this.target = target;
        }

        void putInt(int v) {
            if (target != null) {
                target.set(INT, at, v);
            }
            at += 4;
        }

        void putLong(long v) {
            if (target != null) {
                target.set(LONG, at, v);
            }
            at += 8;
        }

        void putDouble(double v) {
            if (target != null) {
                target.set(DOUBLE, at, v);
            }
            at += 8;
        }

        void putInts(int[] v) {
            putInt(v.length);
            if (target != null) {
                MemorySegment.copy(v, 0, target, INT, at, v.length);
            }
            at += 4L * v.length;
        }

        void putLongs(long[] v) {
            putInt(v.length);
            if (target != null) {
                MemorySegment.copy(v, 0, target, LONG, at, v.length);
            }
            at += 8L * v.length;
        }

        void putDoubles(double[] v) {
            putInt(v.length);
            if (target != null) {
                MemorySegment.copy(v, 0, target, DOUBLE, at, v.length);
            }
            at += 8L * v.length;
        }

        void putBytes(byte[] v) {
            putInt(v.length);
            if (target != null) {
                MemorySegment.copy(v, 0, target, ValueLayout.JAVA_BYTE, at, v.length);
            }
            at += v.length;
        }

        void putString(String v) {
            putBytes(v.getBytes(StandardCharsets.UTF_8));
        }

        void putSegment(MemorySegment v) {
            putLong(v.byteSize());
            if (target != null) {
                MemorySegment.copy(v, 0, target, at, v.byteSize());
            }
            at += v.byteSize();
        }

        int getInt() {
            int v = target.get(INT, at);
            at += 4;
            return v;
        }

        long getLong() {
            long v = target.get(LONG, at);
            at += 8;
            return v;
        }

        double getDouble() {
            double v = target.get(DOUBLE, at);
            at += 8;
            return v;
        }

        int[] getInts() {
            int[] v = new int[getInt()];
            MemorySegment.copy(target, INT, at, v, 0, v.length);
            at += 4L * v.length;
            return v;
        }

        long[] getLongs() {
            long[] v = new long[getInt()];
            MemorySegment.copy(target, LONG, at, v, 0, v.length);
            at += 8L * v.length;
            return v;
        }

        double[] getDoubles() {
            double[] v = new double[getInt()];
            MemorySegment.copy(target, DOUBLE, at, v, 0, v.length);
            at += 8L * v.length;
            return v;
        }

        byte[] getBytes() {
            byte[] v = new byte[getInt()];
            MemorySegment.copy(target, ValueLayout.JAVA_BYTE, at, v, 0, v.length);
            at += v.length;
            return v;
        }

        String getString() {
            return new String(getBytes(), StandardCharsets.UTF_8);
        }

        /** A slice of the source (valid only while the source is). */
        MemorySegment getSegment() {
            long bytes = getLong();
            MemorySegment v = target.asSlice(at, bytes);
            at += bytes;
            return v;
        }
    }
}
