package dev.stoker.store.shard.internal;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

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
                          byte[] extradata, long[] pts, long[] durations, boolean[] keyframes, long[] offsets,
                          int[] sizes, int[] packetCrc32c, int[] sourceKeyframes) {

    /** An entry without its source's keyframes (failures; samples of ingests that did not record them). */
    public RecordEntry(int sourceIndex, boolean failed, String sourcePath, long sourceBytes, long sourceMtimeMillis,
                       int label, String className, String failureReason, String failureMessage, String codecName,
                       String pixelFormat, int width, int height, int timeBaseNumerator, int timeBaseDenominator,
                       double framesPerSecond, double durationSeconds, long payloadOffset, long payloadBytes,
                       int payloadCrc32c, byte[] extradata, long[] pts, long[] durations, boolean[] keyframes,
                       long[] offsets, int[] sizes, int[] packetCrc32c) {
        this(sourceIndex, failed, sourcePath, sourceBytes, sourceMtimeMillis, label, className, failureReason,
                failureMessage, codecName, pixelFormat, width, height, timeBaseNumerator, timeBaseDenominator,
                framesPerSecond, durationSeconds, payloadOffset, payloadBytes, payloadCrc32c, extradata, pts, durations,
                keyframes, offsets, sizes, packetCrc32c, null);
    }

    /** The source a record came from, as seen when it was ingested. */
    public record Source(int index, String path, long bytes, long mtimeMillis, int label, String className) {
    }

    public Source source() {
        return new Source(sourceIndex, sourcePath, sourceBytes, sourceMtimeMillis, label, className);
    }

    public int frameCount() {
        return pts == null ? 0 : pts.length;
    }

    public static RecordEntry failure(Source source, String reason, String message) {
        return new RecordEntry(source.index(), true, source.path(), source.bytes(), source.mtimeMillis(), source.label(),
                source.className(), reason, message, "", "", 0, 0, 1, 1, 0, 0, 0, 0, 0, new byte[0], new long[0],
                new long[0], new boolean[0], new long[0], new int[0], new int[0]);
    }

    public byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + (pts == null ? 0 : pts.length * 29));
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
            out.writeInt(pts.length);
            for (int i = 0; i < pts.length; i++) {
                out.writeLong(pts[i]);
                out.writeLong(durations[i]);
                out.writeBoolean(keyframes[i]);
                out.writeLong(offsets[i]);
                out.writeInt(sizes[i]);
                out.writeInt(packetCrc32c[i]);
            }
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
            long[] pts = new long[n];
            long[] durations = new long[n];
            boolean[] keys = new boolean[n];
            long[] offsets = new long[n];
            int[] sizes = new int[n];
            int[] crcs = new int[n];
            for (int i = 0; i < n; i++) {
                pts[i] = in.readLong();
                durations[i] = in.readLong();
                keys[i] = in.readBoolean();
                offsets[i] = in.readLong();
                sizes[i] = in.readInt();
                crcs[i] = in.readInt();
            }
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
                    width, height, num, den, fps, duration, payloadOffset, payloadBytes, payloadCrc, extradata, pts,
                    durations, keys, offsets, sizes, crcs, sourceKeyframes);
        }
    }
}
