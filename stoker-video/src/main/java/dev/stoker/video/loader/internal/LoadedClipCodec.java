package dev.stoker.video.loader.internal;

import dev.stoker.loader.batch.BatchCollator;
import dev.stoker.loader.batch.BatchPool;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.clip.DecodedClip;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * {@link LoadedClip}: task, place among its video's clips, start, the decoder's account of it
 * ({@link DecodedClip}) and its pixels. The receiving side ({@link #LoadedClipCodec(BatchPool)}) copies the
 * pixels into a one-clip buffer of its own pool, closed with the clip as any other: one copy out of the
 * ring, no allocation per clip for the pixels.
 */
public final class LoadedClipCodec extends CursorCodec<LoadedClip> {
    private final LoaderCodecs.VideoTaskCodec tasks = new LoaderCodecs.VideoTaskCodec();
    private final BatchPool clipBuffers;
    private final java.util.function.Consumer<LoadedClip> arrived;

    /** Encodes only (the child's side). */
    public LoadedClipCodec() {
        this.clipBuffers = null;
        this.arrived = c -> { };
    }

    /** Decodes into buffers of {@code clipBuffers} (waiting for a free one: the consumer's backpressure). */
    public LoadedClipCodec(BatchPool clipBuffers) {
        this(clipBuffers, c -> { });
    }

    /** {@link #LoadedClipCodec(BatchPool)}, telling {@code arrived} of each clip as it comes out of the child. */
    public LoadedClipCodec(BatchPool clipBuffers, java.util.function.Consumer<LoadedClip> arrived) {
        this.clipBuffers = Objects.requireNonNull(clipBuffers, "clipBuffers");
        this.arrived = Objects.requireNonNull(arrived, "arrived");
    }

    @Override
    void write(LoadedClip clip, CodecCursor out) {
        out.putItem(tasks, clip.task());
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
        out.putInt(d.leadFrames());
        out.putSegment(BatchCollator.slot(clip.pixels(), 0));
    }

    @Override
    public LoadedClip decode(MemorySegment source) {
        BatchPool pool = LoaderCodecs.requirePool(clipBuffers, this);
        CodecCursor in = new CodecCursor(source);
        VideoTask task = in.getItem(tasks);
        int clip = in.getInt();
        int clipsOfVideo = in.getInt();
        double start = in.getDouble();
        String path = in.getString();
        int width = in.getInt();
        int height = in.getInt();
        List<Integer> frameIndices = Arrays.stream(in.getInts()).boxed().toList();
        List<Double> pts = Arrays.stream(in.getDoubles()).boxed().toList();
        DecodedClip decoded = new DecodedClip(path, width, height, frameIndices, pts, in.getInt(), in.getInt() != 0,
                in.getInt(), in.getInt());
        MemorySegment pixels = in.getSegment();
        ClipBatch buffer = LoaderCodecs.acquire(pool);
        try {
            MemorySegment slot = BatchCollator.slot(buffer, 0);
            if (pixels.byteSize() != slot.byteSize()) {
                throw new IllegalStateException("clip of '" + path + "': " + pixels.byteSize() + " bytes from the child"
                        + " (expected: " + slot.byteSize() + ", a clip of " + pool.shape() + ")");
            }
            MemorySegment.copy(pixels, 0, slot, 0, pixels.byteSize());
            LoadedClip loaded = new LoadedClip(task, clip, clipsOfVideo, start, buffer, decoded);
            arrived.accept(loaded);
            return loaded;
        } catch (RuntimeException | Error e) {
            buffer.close();
            throw e;
        }
    }
}
