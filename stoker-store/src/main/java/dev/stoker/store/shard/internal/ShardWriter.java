package dev.stoker.store.shard.internal;

import dev.stoker.store.format.internal.EncodedSample;
import dev.stoker.store.shard.ShardFile;
import dev.stoker.video.VideoPackets;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes one shard ({@link ShardLayout}) under its temporary name; {@link #finish} writes the index and
 * footer, syncs and renames it into place. Not thread-safe: the ingest's single write stage owns it.
 */
public final class ShardWriter implements AutoCloseable {
    private final Path directory;
    private final String name;
    private final Path temp;
    private final int firstSource;
    private final FileChannel channel;
    private final List<byte[]> entries = new ArrayList<>();
    private long position;
    private long payloadBytes;
    private int samples;
    private int failures;
    private boolean done;

    public ShardWriter(Path directory, int firstSource, String headerJson) throws IOException {
        this.directory = directory;
        this.firstSource = firstSource;
        this.name = ShardLayout.shardName(firstSource);
        this.temp = directory.resolve(ShardLayout.tempName(name));
        this.channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
        byte[] json = headerJson.getBytes(StandardCharsets.UTF_8);
        ByteBuffer header = ByteBuffer.allocate(8 + 4 + 4 + json.length + 4);
        header.put(ShardLayout.HEADER_MAGIC).putInt(ShardLayout.FORMAT_VERSION).putInt(json.length).put(json)
                .putInt(ShardLayout.crc32c(json, 0, json.length)).flip();
        write(header);
        pad();
    }

    public String name() { return name; }

    public int firstSource() { return firstSource; }

    /** Payload bytes written so far: what the shard size limit is compared with. */
    public long payloadBytes() { return payloadBytes; }

    /** Appends a sample's payload and index entry; returns its record number. */
    public int add(RecordEntry.Source source, EncodedSample sample) throws IOException {
        return add(source, sample, null);
    }

    /**
     * Appends a sample's payload and index entry, with the stored frames its source's keyframes fell on (null: not
     * known); returns its record number.
     */
    public int add(RecordEntry.Source source, EncodedSample sample, int[] sourceKeyframes) throws IOException {
        long offset = position;
        byte[] payload = sample.payload();
        int n = sample.packetCount();
        int[] crcs = new int[n];
        for (int i = 0; i < n; i++) {
            crcs[i] = ShardLayout.crc32c(payload, (int) sample.offsets()[i], sample.sizes()[i] + VideoPackets.PADDING_BYTES);
        }
        write(ByteBuffer.wrap(payload));
        pad();
        payloadBytes += payload.length;
        RecordEntry entry = new RecordEntry(source.index(), false, source.path(), source.bytes(), source.mtimeMillis(),
                source.label(), source.className(), "", "", sample.codecName(), sample.pixelFormat(), sample.width(),
                sample.height(), sample.timeBaseNumerator(), sample.timeBaseDenominator(), sample.framesPerSecond(),
                sample.durationSeconds(), offset, payload.length, ShardLayout.crc32c(payload, 0, payload.length),
                sample.extradata(), new RecordEntry.Packets(sample.pts(), sample.durations(), sample.keyframes(),
                sample.offsets(), sample.sizes(), crcs), sourceKeyframes);
        entries.add(entry.encode());
        samples++;
        return entries.size() - 1;
    }

    /** Records a source that could not be ingested (it is listed, never read). */
    public int addFailure(RecordEntry.Source source, String reason, String message) {
        entries.add(RecordEntry.failure(source, reason, message == null ? "" : message).encode());
        failures++;
        return entries.size() - 1;
    }

    /** Writes index and footer, syncs, and renames the shard into place. */
    public ShardFile.Summary finish(int endSource) throws IOException {
        long indexOffset = position;
        ByteArrayOutputStream index = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(index)) {
            for (byte[] entry : entries) {
                out.writeInt(entry.length);
                out.write(entry);
                out.writeInt(ShardLayout.crc32c(entry, 0, entry.length));
            }
        }
        byte[] indexBytes = index.toByteArray();
        write(ByteBuffer.wrap(indexBytes));
        int indexCrc = ShardLayout.crc32c(indexBytes, 0, indexBytes.length);
        ByteBuffer footer = ByteBuffer.allocate(ShardLayout.FOOTER_BYTES);
        footer.putInt(firstSource).putInt(endSource).putLong(indexOffset).putLong(indexBytes.length)
                .putInt(entries.size()).putInt(indexCrc);
        footer.putInt(ShardLayout.crc32c(footer.array(), 0, footer.position()));
        footer.putInt(0).put(ShardLayout.FOOTER_MAGIC).flip();
        write(footer);
        channel.force(true);
        channel.close();
        Path target = directory.resolve(name);
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
        }
        done = true;
        return new ShardFile.Summary(name, firstSource, endSource, entries.size(), samples, failures, position,
                payloadBytes, indexCrc);
    }

    private void write(ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            position += channel.write(buffer);
        }
    }

    private void pad() throws IOException {
        int pad = (int) ((ShardLayout.ALIGNMENT - position % ShardLayout.ALIGNMENT) % ShardLayout.ALIGNMENT);
        if (pad > 0) {
            write(ByteBuffer.allocate(pad));
        }
    }

    /** Abandons an unfinished shard: closes and deletes its temporary file. */
    @Override
    public void close() throws IOException {
        if (!done) {
            channel.close();
            Files.deleteIfExists(temp);
            done = true;
        }
    }
}
