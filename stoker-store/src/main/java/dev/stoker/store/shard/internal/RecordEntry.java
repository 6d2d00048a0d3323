package dev.stoker.store.shard.internal;

import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Objects;

/**
 * One index entry of a shard: a stored sample (where its payload lies, its packets with their
 * timestamps, keyframe flags and checksums, its codec) or a source that failed to ingest (why). Both
 * carry the source's path, size and modification time, which resume compares with the dataset.
 * Serialised big-endian; the shard stores each entry with its own CRC32C.
 *
 * <p>{@code sourceKeyframes}: the stored frames at which the source video's keyframes fell, ascending, so that
 * clip starts under a decode budget are the ones the source video gets ({@code --max-lead-frames}); null in
 * entries written before ingest recorded them. Written after the packets, so that readers that do not know it
 * read the rest as before.
 */
public record RecordEntry(int sourceIndex, boolean failed, String sourcePath, long sourceBytes,
                          long sourceMtimeMillis, int label, String className, String failureReason,
                          String failureMessage, String codecName, String pixelFormat, int width, int height,
                          int timeBaseNumerator, int timeBaseDenominator, double framesPerSecond,
                          double durationSeconds, long payloadOffset, long payloadBytes, int payloadCrc32c,
                          byte[] extradata, Packets packets, int[] sourceKeyframes) {

    public RecordEntry {
        Objects.requireNonNull(packets, "packets");   // a failure has none: Packets.blank(0)
    }

    /** An entry without its source's keyframes (failures; samples of ingests that did not record them). */
    public RecordEntry(int sourceIndex, boolean failed, String sourcePath, long sourceBytes, long sourceMtimeMillis,
                       int label, String className, String failureReason, String failureMessage, String codecName,
                       String pixelFormat, int width, int height, int timeBaseNumerator, int timeBaseDenominator,
                       double framesPerSecond, double durationSeconds, long payloadOffset, long payloadBytes,
                       int payloadCrc32c, byte[] extradata, Packets packets) {
        this(sourceIndex, failed, sourcePath, sourceBytes, sourceMtimeMillis, label, className, failureReason,
                failureMessage, codecName, pixelFormat, width, height, timeBaseNumerator, timeBaseDenominator,
                framesPerSecond, durationSeconds, payloadOffset, payloadBytes, payloadCrc32c, extradata, packets, null);
    }

    /**
     * A sample's packets in decode order, one index each: pts and duration in time-base ticks, whether decoding can
     * start there, where its payload lies in the sample's payload (offset, size without the padding), and the CRC32C
     * of payload and padding.
     */
    public record Packets(long[] pts, long[] durations, boolean[] keyframes, long[] offsets, int[] sizes,
                          int[] crc32c) {
        private static final Packets NONE = blank(0);

        public Packets {
            int count = pts.length;
            if (durations.length != count || keyframes.length != count || offsets.length != count
                    || sizes.length != count || crc32c.length != count) {
                throw new IllegalArgumentException("packets: columns of " + count + ", " + durations.length + ", "
                        + keyframes.length + ", " + offsets.length + ", " + sizes.length + " and " + crc32c.length
                        + " (expected: one length)");
            }
        }

        /** {@code count} packets whose fields are all zero, to be filled in. */
        public static Packets blank(int count) {
            return new Packets(new long[count], new long[count], new boolean[count], new long[count], new int[count],
                    new int[count]);
        }

        public int count() { return pts.length; }

        private void writeTo(DataOutput out) throws IOException {
            out.writeInt(count());
            for (int i = 0; i < count(); i++) {
                out.writeLong(pts[i]);
                out.writeLong(durations[i]);
                out.writeBoolean(keyframes[i]);
                out.writeLong(offsets[i]);
                out.writeInt(sizes[i]);
                out.writeInt(crc32c[i]);
            }
        }

        private static Packets read(DataInput in, int count) throws IOException {
            Packets packets = blank(count);
            for (int i = 0; i < count; i++) {
                packets.pts[i] = in.readLong();
                packets.durations[i] = in.readLong();
                packets.keyframes[i] = in.readBoolean();
                packets.offsets[i] = in.readLong();
                packets.sizes[i] = in.readInt();
                packets.crc32c[i] = in.readInt();
            }
            return packets;
        }
    }

    /** The source a record came from, as seen when it was ingested. */
    public record Source(int index, String path, long bytes, long mtimeMillis, int label, String className) {
    }

    public Source source() {
        return new Source(sourceIndex, sourcePath, sourceBytes, sourceMtimeMillis, label, className);
    }

    public int frameCount() { return packets.count(); }

    public long[] pts() { return packets.pts(); }

    public long[] durations() { return packets.durations(); }

    public boolean[] keyframes() { return packets.keyframes(); }

    public long[] offsets() { return packets.offsets(); }

    public int[] sizes() { return packets.sizes(); }

    public int[] packetCrc32c() { return packets.crc32c(); }

    public static RecordEntry failure(Source source, String reason, String message) {
        return new RecordEntry(source.index(), true, source.path(), source.bytes(), source.mtimeMillis(), source.label(),
                source.className(), reason, message, "", "", 0, 0, 1, 1, 0, 0, 0, 0, 0, new byte[0], Packets.NONE);
    }

    public byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + frameCount() * 29);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(sourceIndex);
            out.writeBoolean(failed);
            out.writeUTF(sourcePath);
            out.writeLong(sourceBytes);
            out.writeLong(sourceMtimeMillis);
            out.writeInt(label);
            out.writeUTF(className);
            if (failed) {
                out.writeUTF(failureReason);
                out.writeUTF(failureMessage.length() > 8000 ? failureMessage.substring(0, 8000) : failureMessage);
                return finish(out, bytes);
            }
            out.writeUTF(codecName);
            out.writeUTF(pixelFormat);
            out.writeInt(width);
            out.writeInt(height);
            out.writeInt(timeBaseNumerator);
            out.writeInt(timeBaseDenominator);
            out.writeDouble(framesPerSecond);
            out.writeDouble(durationSeconds);
            out.writeLong(payloadOffset);
            out.writeLong(payloadBytes);
            out.writeInt(payloadCrc32c);
            out.writeInt(extradata.length);
            out.write(extradata);
            packets.writeTo(out);
            if (sourceKeyframes != null) {
                out.writeInt(sourceKeyframes.length);
                for (int k : sourceKeyframes) {
                    out.writeInt(k);
                }
            }
            return finish(out, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] finish(DataOutputStream out, ByteArrayOutputStream bytes) throws IOException {
        out.flush();
        return bytes.toByteArray();
    }

    /** Parses an entry; throws IOException (EOF, bad length) on malformed bytes. */
    public static RecordEntry decode(byte[] bytes) throws IOException {
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(bytes))) {
            int sourceIndex = in.readInt();
            boolean failed = in.readBoolean();
            String path = in.readUTF();
            long size = in.readLong();
            long mtime = in.readLong();
            int label = in.readInt();
            String className = in.readUTF();
            if (failed) {
                return failure(new Source(sourceIndex, path, size, mtime, label, className), in.readUTF(), in.readUTF());
            }
            String codec = in.readUTF();
            String pixelFormat = in.readUTF();
            int width = in.readInt();
            int height = in.readInt();
            int num = in.readInt();
            int den = in.readInt();
            double fps = in.readDouble();
            double duration = in.readDouble();
            long payloadOffset = in.readLong();
            long payloadBytes = in.readLong();
            int payloadCrc = in.readInt();
            int extraLength = in.readInt();
            if (extraLength < 0 || extraLength > bytes.length) {
                throw new IOException("extradata length " + extraLength);
            }
            byte[] extradata = in.readNBytes(extraLength);
            int n = in.readInt();
            if (n < 0 || (long) n * 29 > bytes.length) {
                throw new IOException("packet count " + n);
            }
            Packets packets = Packets.read(in, n);
            int[] sourceKeyframes = null;
            if (in.available() > 0) {
                int k = in.readInt();
                if (k < 0 || k > n) {
                    throw new IOException("source keyframe count " + k);
                }
                sourceKeyframes = new int[k];
                for (int i = 0; i < k; i++) {
                    sourceKeyframes[i] = in.readInt();
                    if (sourceKeyframes[i] < 0 || sourceKeyframes[i] >= n || (i > 0 && sourceKeyframes[i] <= sourceKeyframes[i - 1])) {
                        throw new IOException("source keyframe " + i + ": frame " + sourceKeyframes[i]);
                    }
                }
            }
            return new RecordEntry(sourceIndex, false, path, size, mtime, label, className, "", "", codec, pixelFormat,
                    width, height, num, den, fps, duration, payloadOffset, payloadBytes, payloadCrc, extradata,
                    packets, sourceKeyframes);
        }
    }
}
