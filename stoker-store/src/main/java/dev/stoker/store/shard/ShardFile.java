package dev.stoker.store.shard;

import dev.stoker.store.internal.ShardException.Reason;
import dev.stoker.store.internal.ShardException;
import dev.stoker.store.remote.BlobStore;
import dev.stoker.store.remote.BlockCache;
import dev.stoker.store.shard.internal.RecordEntry;
import dev.stoker.store.shard.internal.RemoteShardBytes;
import dev.stoker.store.shard.internal.ShardLayout;
import dev.stoker.video.VideoPackets;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.zip.CRC32C;

/**
 * One shard file, memory-mapped ({@code FileChannel.map(..., arena)}) or in object storage ({@link #remote}, read
 * with ranged GETs): header, footer and index are parsed and checked on first use, each index entry against its
 * own CRC32C, so damage is pinned to a record. Thread-safe.
 */
public final class ShardFile {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** The first bytes read to parse a header: headers are a few hundred bytes of JSON. */
    private static final long HEAD_BYTES = 16 << 10;

    /** What a finished shard holds, as the manifest lists it. */
    public record Summary(String file, int firstSource, int endSource, int records, int samples, int failed,
                          long fileBytes, long payloadBytes, int indexCrc32c) {
    }

    private final String name;
    /** The mapping; null for a remote shard. */
    private final MemorySegment bytes;
    /** The object; null for a mapped shard. */
    private final RemoteShardBytes remote;
    private volatile Parsed parsed;

    /**
     * Header, footer and entries as parsed; an entry slot holds the entry or why it is unusable. {@code checked}
     * holds, per record, a bit set of the packets whose checksum matched ({@link #checkPacketOnce}), made on
     * first use.
     */
    private record Parsed(String headerJson, int firstSource, int endSource, long indexOffset, long indexBytes,
                          int indexCrc, boolean indexCrcMatches, Object[] entries, ShardException failure,
                          AtomicReferenceArray<AtomicLongArray> checked) {
    }

    private ShardFile(String name, MemorySegment bytes, RemoteShardBytes remote) {
        this.name = name;
        this.bytes = bytes;
        this.remote = remote;
    }

    /** Maps {@code file} read-only into {@code arena}; nothing is parsed yet. */
    public static ShardFile map(Path file, Arena arena) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            MemorySegment segment = size == 0 ? MemorySegment.NULL : channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            return new ShardFile(file.getFileName().toString(), segment, null);
        }
    }

    /**
     * Object {@code key} of {@code store}, {@code sizeBytes} long (as the manifest lists it): nothing is read yet;
     * header, footer and index on first use, packets as clips need them ({@link #fetch}).
     */
    public static ShardFile remote(BlobStore store, String key, long sizeBytes) {
        return remote(store, key, sizeBytes, null, null);
    }

    /**
     * {@link #remote(BlobStore, String, long)} read through {@code cache} (null: none), its blocks named by
     * {@code version} (the manifest's index checksum: a re-ingested shard never meets its old blocks).
     */
    public static ShardFile remote(BlobStore store, String key, long sizeBytes, BlockCache cache, String version) {
        return new ShardFile(key.substring(key.lastIndexOf('/') + 1), null,
                new RemoteShardBytes(store, key, sizeBytes, cache, version));
    }

    /** Whether the shard is read with ranged GETs rather than mapped. */
    public boolean isRemote() {
        return remote != null;
    }

    public String name() { return name; }

    public long fileBytes() {
        return remote != null ? remote.size() : bytes.byteSize();
    }

    /** The header's JSON ({format, options}); throws when header or footer is unusable. */
    public String headerJson() {
        return parsed().headerJson;
    }

    public int firstSource() {
        return parsed().firstSource;
    }

    public int endSource() {
        return parsed().endSource;
    }

    public int indexCrc32c() {
        return parsed().indexCrc;
    }

    /** Whether the whole index matches the footer's checksum. */
    public boolean indexIntact() {
        return parsed().indexCrcMatches;
    }

    public int entryCount() {
        return parsed().entries.length;
    }

    /** Entry {@code record}, or a {@link ShardException} naming this shard and the record. */
    public RecordEntry entry(int record) {
        Parsed p;
        try {
            p = parsed();
        } catch (ShardException e) {
            throw e.forRecord(record);
        }
        if (record < 0 || record >= p.entries.length) {
            throw new ShardException(name, record, Reason.INCONSISTENT,
                    "no such record (the shard has " + p.entries.length + ")");
        }
        Object e = p.entries[record];
        if (e instanceof ShardException failure) {
            throw failure.forRecord(record);
        }
        return (RecordEntry) e;
    }

    /** The payload of a sample entry, bounds-checked against the file. */
    public MemorySegment payload(int record, RecordEntry entry) {
        // Compared by subtraction: a lying offset near Long.MAX_VALUE must not wrap past the check.
        if (entry.payloadOffset() < 0 || entry.payloadBytes() < 0
                || entry.payloadOffset() > parsed().indexOffset - entry.payloadBytes()) {
            throw new ShardException(name, record, Reason.BAD_OFFSET, "payload at " + entry.payloadOffset() + ", "
                    + entry.payloadBytes() + " bytes (expected: within the records area, before byte "
                    + parsed().indexOffset + ")");
        }
        MemorySegment payload = remote != null ? remote.payload(entry.payloadBytes())
                : bytes.asSlice(entry.payloadOffset(), entry.payloadBytes());
        for (int i = 0; i < entry.frameCount(); i++) {
            if (entry.offsets()[i] < 0 || entry.sizes()[i] < 0
                    || entry.offsets()[i] > entry.payloadBytes() - VideoPackets.PADDING_BYTES - entry.sizes()[i]) {
                throw new ShardException(name, record, Reason.BAD_OFFSET, "packet " + i + " at " + entry.offsets()[i]
                        + ", " + entry.sizes()[i] + " bytes (expected: within the " + entry.payloadBytes() + "-byte payload)");
            }
        }
        return payload;
    }

    /**
     * Makes packets {@code packets} of {@code payload} (from {@link #payload}) readable: nothing to do for a mapped
     * shard; a remote one downloads their byte ranges, adjacent ones merged into one request.
     */
    public void fetch(int record, RecordEntry entry, MemorySegment payload, BitSet packets) {
        if (remote != null) {
            remote.fetch(name, record, entry, entry.payloadOffset(), payload, packets);
        }
    }

    /**
     * Holds the cache blocks of packets {@code packets} of a record until the pin is closed, downloading the missing
     * ones: a remote shard's read ahead. Null for a mapped shard or one read without a cache.
     */
    public BlockCache.Pin pin(int record, RecordEntry entry, BitSet packets) {
        return remote == null ? null : remote.pin(name, record, entry, entry.payloadOffset(), packets);
    }

    /** The cache bytes {@link #pin} would hold (0 for a mapped shard or one read without a cache). */
    public long pinBytes(RecordEntry entry, BitSet packets) {
        return remote == null ? 0 : remote.pinBytes(entry, entry.payloadOffset(), packets);
    }

    /** Where {@code slice} (a slice of this shard's mapping) starts in the file. */
    public long fileOffset(MemorySegment slice) {
        if (remote != null) {
            throw new IllegalStateException(name + " is read with ranged GETs, not mapped");
        }
        long offset = slice.address() - bytes.address();
        if (offset < 0 || offset + slice.byteSize() > bytes.byteSize()) {
            throw new IllegalArgumentException("slice at address " + slice.address() + ", " + slice.byteSize()
                    + " bytes (expected: within the mapping of " + name + ")");
        }
        return offset;
    }

    /** Checks the CRC32C of packet {@code packet} (payload and padding) of a sample. */
    public void checkPacket(int record, RecordEntry entry, MemorySegment payload, int packet) {
        int actual = crc(payload.asSlice(entry.offsets()[packet], entry.sizes()[packet] + VideoPackets.PADDING_BYTES));
        if (actual != entry.packetCrc32c()[packet]) {
            throw new ShardException(name, record, Reason.CHECKSUM, "frame " + packet + " of " + entry.sourcePath()
                    + ": checksum " + hex(actual) + " (expected: " + hex(entry.packetCrc32c()[packet]) + ")");
        }
    }

    /**
     * {@link #checkPacket} the first time it passes for this packet of this mapping; afterwards a no-op. A failed
     * check is not remembered, so a damaged packet fails every time. Any thread; two threads checking the same
     * packet at once both check it. A remote shard's packets are downloaded anew for each read: checked each time.
     */
    public void checkPacketOnce(int record, RecordEntry entry, MemorySegment payload, int packet) {
        if (remote != null) {
            checkPacket(record, entry, payload, packet);
            return;
        }
        AtomicReferenceArray<AtomicLongArray> checked = parsed().checked;
        AtomicLongArray bits = checked.get(record);
        if (bits == null) {
            checked.compareAndSet(record, null, new AtomicLongArray((entry.frameCount() + 63) >>> 6));
            bits = checked.get(record);
        }
        long mask = 1L << packet; // the shift takes packet mod 64
        if ((bits.get(packet >>> 6) & mask) != 0) {
            return;
        }
        checkPacket(record, entry, payload, packet);
        bits.getAndAccumulate(packet >>> 6, mask, (a, b) -> a | b);
    }

    /** Checks the whole payload's CRC32C. */
    public void checkPayload(int record, RecordEntry entry, MemorySegment payload) {
        int actual = crc(payload);
        if (actual != entry.payloadCrc32c()) {
            throw new ShardException(name, record, Reason.CHECKSUM, "payload of " + entry.sourcePath() + ": checksum "
                    + hex(actual) + " (expected: " + hex(entry.payloadCrc32c()) + ")");
        }
    }

    static int crc(MemorySegment segment) {
        CRC32C crc = new CRC32C();
        crc.update(segment.asByteBuffer());
        return (int) crc.getValue();
    }

    static String hex(int crc) {
        return String.format("%08x", crc);
    }

    private Parsed parsed() {
        Parsed p = parsed;
        if (p == null) {
            synchronized (this) {
                p = parsed;
                if (p == null) {
                    p = parse();
                    parsed = p;
                }
            }
        }
        if (p.failure != null) {
            throw p.failure;
        }
        return p;
    }

    private Parsed parse() {
        try {
            return parseOrThrow();
        } catch (ShardException e) {
            if (e.reason() == Reason.IO) {
                throw e; // a failed download is not the shard's fault: the next read tries again
            }
            return new Parsed(null, 0, 0, 0, 0, 0, false, new Object[0], e, null);
        } catch (IndexOutOfBoundsException e) {
            return new Parsed(null, 0, 0, 0, 0, 0, false, new Object[0],
                    new ShardException(name, -1, Reason.TRUNCATED, "a header or footer field lies past the file's end", e),
                    null);
        }
    }

    private Parsed parseOrThrow() {
        long size = fileBytes();
        if (size < 20 + ShardLayout.FOOTER_BYTES) {
            throw new ShardException(name, -1, Reason.TRUNCATED, size + " bytes (expected: at least a header and a "
                    + ShardLayout.FOOTER_BYTES + "-byte footer)");
        }
        // A remote shard's header is one GET of its first bytes (a second only for a header longer than that).
        MemorySegment head = region(0, Math.min(size, HEAD_BYTES));
        byte[] magic = head.asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE);
        if (!Arrays.equals(magic, ShardLayout.HEADER_MAGIC)) {
            throw new ShardException(name, -1, Reason.VERSION, "not a Stoker shard (expected: magic STKSHARD)");
        }
        int version = head.get(INT, 8);
        if (version != ShardLayout.FORMAT_VERSION) {
            throw new ShardException(name, -1, Reason.VERSION, "format version " + version + " (expected: "
                    + ShardLayout.FORMAT_VERSION + "; ingest again with this Stoker)");
        }
        int headerLength = head.get(INT, 12);
        if (headerLength < 0 || 16L + headerLength + 4 > size) {
            throw new ShardException(name, -1, Reason.TRUNCATED, "header of " + headerLength + " bytes");
        }
        MemorySegment headerBytes = 16L + headerLength + 4 <= head.byteSize() ? head.asSlice(16, headerLength + 4L)
                : region(16, headerLength + 4L);
        byte[] header = headerBytes.asSlice(0, headerLength).toArray(ValueLayout.JAVA_BYTE);
        int headerCrc = headerBytes.get(INT, headerLength);
        if (ShardLayout.crc32c(header, 0, header.length) != headerCrc) {
            throw new ShardException(name, -1, Reason.CHECKSUM, "header checksum mismatch");
        }
        long footerAt = size - ShardLayout.FOOTER_BYTES;
        MemorySegment tail = region(footerAt, ShardLayout.FOOTER_BYTES);
        byte[] footerMagic = tail.asSlice(40, 8).toArray(ValueLayout.JAVA_BYTE);
        if (!Arrays.equals(footerMagic, ShardLayout.FOOTER_MAGIC)) {
            throw new ShardException(name, -1, Reason.TRUNCATED, "no footer at the end (expected: magic STKSEND1)");
        }
        byte[] footer = tail.asSlice(0, 32).toArray(ValueLayout.JAVA_BYTE);
        if (ShardLayout.crc32c(footer, 0, 32) != tail.get(INT, 32)) {
            throw new ShardException(name, -1, Reason.CHECKSUM, "footer checksum mismatch");
        }
        int firstSource = tail.get(INT, 0);
        int endSource = tail.get(INT, 4);
        long indexOffset = tail.get(LONG, 8);
        long indexBytes = tail.get(LONG, 16);
        int entries = tail.get(INT, 24);
        int indexCrc = tail.get(INT, 28);
        if (indexOffset < 16 + headerLength || indexBytes < 0 || indexOffset + indexBytes != footerAt || entries < 0) {
            throw new ShardException(name, -1, Reason.BAD_OFFSET, "index at " + indexOffset + ", " + indexBytes
                    + " bytes (expected: ending at the footer, byte " + footerAt + ")");
        }
        if (entries > indexBytes / 8) {
            // Each entry takes at least its length and checksum: a larger count is a lie, not an allocation to make.
            throw new ShardException(name, -1, Reason.BAD_OFFSET, entries + " index entries in " + indexBytes
                    + " bytes (expected: at most " + indexBytes / 8 + ", 8+ bytes each)");
        }
        MemorySegment index = region(indexOffset, indexBytes);
        boolean indexMatches = crc(index) == indexCrc;
        Object[] parsedEntries = new Object[entries];
        long at = 0;
        for (int r = 0; r < entries; r++) {
            if (at + 4 > indexBytes) {
                fill(parsedEntries, r, new ShardException(name, r, Reason.TRUNCATED, "index ends before this entry"));
                break;
            }
            int length = index.get(INT, at);
            if (length < 0 || at + 4 + length + 4 > indexBytes) {
                fill(parsedEntries, r, new ShardException(name, r, Reason.BAD_OFFSET, "index entry length " + length
                        + " runs past the index (" + indexBytes + " bytes)"));
                break;
            }
            byte[] entry = index.asSlice(at + 4, length).toArray(ValueLayout.JAVA_BYTE);
            int crc = index.get(INT, at + 4 + length);
            at += 8 + length;
            int actual = ShardLayout.crc32c(entry, 0, length);
            if (actual != crc) {
                parsedEntries[r] = new ShardException(name, r, Reason.CHECKSUM, "index entry checksum " + hex(actual)
                        + " (expected: " + hex(crc) + ")");
                continue;
            }
            try {
                parsedEntries[r] = RecordEntry.decode(entry);
            } catch (IOException | RuntimeException e) {
                parsedEntries[r] = new ShardException(name, r, Reason.INCONSISTENT, "index entry unreadable: " + e, e);
            }
        }
        return new Parsed(new String(header, StandardCharsets.UTF_8), firstSource, endSource, indexOffset, indexBytes,
                indexCrc, indexMatches, parsedEntries, null, new AtomicReferenceArray<>(entries));
    }

    /** Bytes of the file: a slice of the mapping, or a ranged GET. */
    private MemorySegment region(long offset, long length) {
        return remote != null ? remote.region(name, offset, length) : bytes.asSlice(offset, length);
    }

    private static void fill(Object[] entries, int from, ShardException failure) {
        for (int i = from; i < entries.length; i++) {
            entries[i] = failure;
        }
    }
}
