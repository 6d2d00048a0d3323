package dev.stoker.video;

import dev.stoker.pipeline.MemoryAccount;
import dev.stoker.video.internal.PacketColumns;
import java.lang.foreign.MemorySegment;
import org.bytedeco.javacpp.Pointer;

/**
 * Every video packet of one stream, in decode order: timestamps and flags in parallel arrays and
 * the payloads packed in one native buffer, each followed by the zeroed padding decoders require.
 *
 * <p>Holding the packets (not the container) makes a seek an array lookup: a clip starts decoding
 * at the keyframe it needs without av_seek_frame and its demuxer-specific inexactness.
 */
final class PacketStore implements AutoCloseable {
    /** AV_INPUT_BUFFER_PADDING_SIZE: decoders may read this far past a packet's end. */
    static final int PADDING_BYTES = 64;
    /** AV_NOPTS_VALUE. */
    static final long NO_TIMESTAMP = Long.MIN_VALUE;

    private PacketColumns packets = new PacketColumns(256);
    private Pointer buffer;
    private long capacityBytes;
    private long usedBytes;
    /** Base address of caller-owned payloads ({@link #view}); 0 when the payloads are in {@code buffer}. */
    private long externalAddress;

    PacketStore(long initialCapacityBytes) {
        capacityBytes = Math.max(4096, initialCapacityBytes);
        buffer = Pointer.malloc(capacityBytes);
        if (buffer == null || buffer.isNull()) {
            throw new OutOfMemoryError("malloc(" + capacityBytes + ") for video packets");
        }
        MemoryAccount.allocated(MemoryAccount.Kind.PACKET_BUFFERS, capacityBytes);
    }

    private PacketStore() {
    }

    /**
     * A store over payloads the caller owns (a mapped shard): nothing is copied and {@link #close()}
     * frees nothing. Every packet must be followed by {@link #PADDING_BYTES} readable zero bytes.
     */
    static PacketStore view(MemorySegment payloads, long[] pts, long[] dts, long[] durations, int[] flags,
                            long[] offsets, int[] sizes) {
        PacketStore store = new PacketStore();
        store.index(pts, dts, durations, flags, offsets, sizes, payloads.byteSize());
        store.externalAddress = payloads.address();
        store.capacityBytes = payloads.byteSize();
        return store;
    }

    /**
     * Like {@link #view}, but the payloads are copied (in one piece) into a buffer this store owns and
     * {@link #close()} frees: {@code payloads} need only be valid during this call.
     */
    static PacketStore copy(MemorySegment payloads, long[] pts, long[] dts, long[] durations, int[] flags,
                            long[] offsets, int[] sizes) {
        PacketStore store = new PacketStore(payloads.byteSize());
        MemorySegment.copy(payloads, 0, MemorySegment.ofAddress(store.buffer.address()).reinterpret(payloads.byteSize()),
                0, payloads.byteSize());
        store.index(pts, dts, durations, flags, offsets, sizes, payloads.byteSize());
        return store;
    }

    /** Takes copies of a caller's packet index (view and copy share it). */
    private void index(long[] pts, long[] dts, long[] durations, int[] flags, long[] offsets, int[] sizes,
                       long payloadBytes) {
        this.packets = PacketColumns.copyOf(pts, dts, durations, flags, offsets, sizes);
        this.usedBytes = payloadBytes;
    }

    /** The payloads with their padding, as laid out at {@link #offset}: valid until {@link #close()}. */
    MemorySegment payloads() {
        long base = externalAddress != 0 ? externalAddress : buffer.address();
        return MemorySegment.ofAddress(base).reinterpret(usedBytes);
    }

    long offset(int packet) {
        return packets.offset(packet);
    }

    /** Copies one packet's payload (at {@code dataAddress}) and records its timing. */
    void append(long dataAddress, int sizeBytes, long packetPts, long packetDts, long duration, int packetFlags) {
        long needed = usedBytes + sizeBytes + PADDING_BYTES;
        if (needed > capacityBytes) {
            grow(needed);
        }
        MemorySegment target = MemorySegment.ofAddress(buffer.address() + usedBytes).reinterpret(sizeBytes + PADDING_BYTES);
        if (sizeBytes > 0) {
            MemorySegment.copy(MemorySegment.ofAddress(dataAddress).reinterpret(sizeBytes), 0, target, 0, sizeBytes);
        }
        target.asSlice(sizeBytes, PADDING_BYTES).fill((byte) 0);
        packets.add(packetPts, packetDts, duration, packetFlags, usedBytes, sizeBytes);
        usedBytes += sizeBytes + PADDING_BYTES;
    }

    private void grow(long needed) {
        long capacity = Math.max(needed, capacityBytes + capacityBytes / 2);
        Pointer grown = Pointer.realloc(buffer, capacity);
        if (grown == null || grown.isNull()) {
            throw new OutOfMemoryError("realloc(" + capacity + ") for video packets");
        }
        buffer = grown;
        MemoryAccount.allocated(MemoryAccount.Kind.PACKET_BUFFERS, capacity - capacityBytes);
        capacityBytes = capacity;
    }

    /** Gives back the unused tail of the buffer once every packet is in. */
    void trim() {
        if (usedBytes > 0 && usedBytes < capacityBytes) {
            Pointer trimmed = Pointer.realloc(buffer, usedBytes);
            if (trimmed != null && !trimmed.isNull()) {
                buffer = trimmed;
                MemoryAccount.freed(MemoryAccount.Kind.PACKET_BUFFERS, capacityBytes - usedBytes);
                capacityBytes = usedBytes;
            }
        }
    }

    int count() { return packets.count(); }

    /** The packets' index (timestamps, flags, where each payload lies), to copy out whole: read-only to callers. */
    PacketColumns columns() { return packets; }

    long pts(int packet) {
        return packets.pts(packet);
    }

    long dts(int packet) {
        return packets.dts(packet);
    }

    long duration(int packet) {
        return packets.duration(packet);
    }

    int flags(int packet) {
        return packets.flags(packet);
    }

    int sizeBytes(int packet) {
        return packets.sizeBytes(packet);
    }

    long address(int packet) {
        return (externalAddress != 0 ? externalAddress : buffer.address()) + packets.offset(packet);
    }

    /** Native bytes held, payloads plus padding. */
    long bufferBytes() { return capacityBytes; }

    @Override
    public void close() {
        if (buffer != null) {
            Pointer.free(buffer);
            buffer = null;
            MemoryAccount.freed(MemoryAccount.Kind.PACKET_BUFFERS, capacityBytes);
        }
    }
}
