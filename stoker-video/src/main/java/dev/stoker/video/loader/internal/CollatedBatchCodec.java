package dev.stoker.video.loader.internal;

import dev.stoker.loader.batch.BatchCollator;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.BatchPool;
import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link CollatedBatch}: geometry, where the batch ends in the epoch, each clip's {@link ClipInfo} (path,
 * label, frame times, frames decoded, decode lead, text), then the pixels of the filled clips as they lie in the batch. The
 * receiving side ({@link #CollatedBatchCodec(BatchPool)}) copies them into a batch of its own pool (one
 * copy, no allocation for the pixels), which the consumer closes as any other: back to that pool, leaks
 * reported as any other.
 */
public final class CollatedBatchCodec extends CursorCodec<CollatedBatch> {
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
    void write(CollatedBatch collated, CodecCursor out) {
        List<ClipInfo> clips = collated.batch().clips();
        BatchShape shape = collated.batch().batchShape();
        out.putInts(new int[] {shape.clipsPerBatch(), shape.frames(), shape.height(), shape.width(), shape.channels(),
                shape.layout().ordinal(), collated.epoch(), collated.position(), collated.clip(), collated.clipsOfVideo()});
        out.putInt(clips.size());
        for (ClipInfo c : clips) {
            out.putString(c.path().toString());
            out.putInt(c.label());
            out.putInt(c.framesDecoded());
            out.putInt(c.leadFrames());
            out.putDoubles(c.frameTimestampsSeconds());
            out.putInt(c.text().isPresent() ? 1 : 0);
            out.putString(c.text().orElse(""));
        }
        out.putSegment(collated.batch().data());
    }

    @Override
    public CollatedBatch decode(MemorySegment source) {
        BatchPool pool = LoaderCodecs.requirePool(batches, this);
        CodecCursor in = new CodecCursor(source);
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
            int leadFrames = in.getInt();
            double[] times = in.getDoubles();
            boolean hasText = in.getInt() != 0;
            String text = in.getString();
            clips.add(new ClipInfo(path, label, times, framesDecoded, leadFrames,
                    hasText ? Optional.of(text) : Optional.empty()));
        }
        MemorySegment pixels = in.getSegment();
        ClipBatch batch = LoaderCodecs.acquire(pool);
        try {
            BatchCollator.putAll(batch, pixels, clips);
            return new CollatedBatch(batch, g[6], g[7], g[8], g[9]);
        } catch (RuntimeException | Error e) {
            batch.close();
            throw e;
        }
    }
}
