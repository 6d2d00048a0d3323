package dev.stoker.store.loader;

import dev.stoker.loader.batch.BatchCollator;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.store.internal.MappedClip;

/**
 * Where a read clip's pixels are until collate puts them in a batch: decoded into a pooled one-clip buffer,
 * or still in the mapped shard ({@code raw} frames at their stored scale), copied once, straight into the
 * batch slot, which saves a copy of every pixel and the buffer's round trip through its pool.
 */
sealed interface ClipPixels extends AutoCloseable {

    /** Puts the pixels in slot {@code slot} of {@code batch} and records {@code info} there. */
    void writeTo(ClipBatch batch, int slot, ClipInfo info);

    @Override
    void close();

    /** Decoded into a pooled buffer (THWC, slot 0), which close() returns. */
    record Buffered(ClipBatch buffer) implements ClipPixels {
        @Override
        public void writeTo(ClipBatch batch, int slot, ClipInfo info) {
            BatchCollator.put(batch, slot, BatchCollator.slot(buffer, 0), info);
        }

        @Override
        public void close() {
            buffer.close();
        }
    }

    /** Still in the mapped shard; only for NTHWC batches, whose slots take a THWC clip as it is. */
    record Mapped(MappedClip clip) implements ClipPixels {
        @Override
        public void writeTo(ClipBatch batch, int slot, ClipInfo info) {
            clip.copyTo(BatchCollator.slot(batch, slot));
            BatchCollator.commit(batch, slot, info);
        }

        @Override
        public void close() {
            // nothing held: the mapping belongs to the dataset
        }
    }
}
