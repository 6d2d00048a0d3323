package dev.stoker.pipeline.subprocess;

import java.lang.foreign.MemorySegment;

/**
 * Moves items of one type across the process boundary: writes an item straight into the shared-memory
 * ring ({@link #encode}) and reads it back out on the other side ({@link #decode}). A codec is named in
 * the pipeline's description ({@link #name()}) so that the child can make the same one: the built-ins
 * of {@link ItemCodecs} by their short names, any other by its class name (a public class with a
 * public no-arg constructor).
 *
 * @param <T> the item type
 */
public interface ItemCodec<T> {

    /** What {@link ItemCodecs#named} resolves back to this codec: a built-in's name, else the class name. */
    default String name() {
        return getClass().getName();
    }

    /** Bytes {@link #encode} will write for {@code item}. */
    long encodedBytes(T item);

    /** Writes {@code item} into {@code target}, which is exactly {@link #encodedBytes} long (a slice of the ring). */
    void encode(T item, MemorySegment target);

    /** Reads an item from {@code source} (a slice of the ring, valid only during the call: copy what you keep). */
    T decode(MemorySegment source);
}
