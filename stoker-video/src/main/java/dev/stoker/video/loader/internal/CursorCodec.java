package dev.stoker.video.loader.internal;

import dev.stoker.pipeline.subprocess.ItemCodec;
import java.lang.foreign.MemorySegment;

/**
 * An item codec whose one {@link #write} both sizes an item (over a {@link CodecCursor} with no segment, which only
 * counts) and encodes it, so that the two can never disagree.
 */
abstract class CursorCodec<T> implements ItemCodec<T> {

    /** Puts {@code item}'s fields, in the order {@code decode} reads them. */
    abstract void write(T item, CodecCursor out);

    @Override
    public final long encodedBytes(T item) {
        CodecCursor count = new CodecCursor(null);
        write(item, count);
        return count.at;
    }

    @Override
    public final void encode(T item, MemorySegment target) {
        write(item, new CodecCursor(target));
    }
}
