package dev.stoker.loader.batch;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Objects;

/**
 * Writes clips into the slots of a {@link ClipBatch}. Different slots of one batch may be written from
 * different threads at the same time.
 *
 * <p>Two ways in: {@link #put} copies a clip given in THWC order (what a decoder converting to packed
 * RGB produces), transposing when the batch is NCTHW; or, for NTHWC batches, a converter writes straight
 * into {@link #slot} and then calls {@link #commit}, which saves a copy of every pixel.
 */
public final class BatchCollator {

    private BatchCollator() {
    }

    /**
     * Copies one clip of T×H×W×C bytes (THWC order) into slot {@code slot} and records its metadata.
     *
     * @throws IllegalArgumentException if {@code framesThwc} is not exactly one clip's size
     */
    public static void put(ClipBatch batch, int slot, MemorySegment framesThwc, ClipInfo info) {
        Objects.requireNonNull(info, "info");
        BatchShape shape = batch.batchShape();
        if (framesThwc.byteSize() != shape.clipBytes()) {
            throw new IllegalArgumentException("framesThwc: " + framesThwc.byteSize() + " bytes (expected: "
                    + shape.clipBytes() + " = T " + shape.frames() + " x H " + shape.height() + " x W "
                    + shape.width() + " x C " + shape.channels() + ")");
        }
        MemorySegment destination = batch.slotSegment(slot);
        switch (shape.layout()) {
            case NTHWC -> MemorySegment.copy(framesThwc, 0, destination, 0, shape.clipBytes());
            case NCTHW -> transposeToChannelPlanes(framesThwc, destination, shape);
        }
        batch.setClip(slot, info);
    }

    /**
     * The destination bytes of slot {@code slot} (T×H×W×C, THWC order) for writing a clip in place;
     * call {@link #commit} when done.
     *
     * @throws IllegalStateException if the batch is not {@link BatchLayout#NTHWC}
     */
    public static MemorySegment slot(ClipBatch batch, int slot) {
        if (batch.layout() != BatchLayout.NTHWC) {
            throw new IllegalStateException("layout: " + batch.layout()
                    + " (expected: NTHWC for in-place writes; use put() to transpose)");
        }
        return batch.slotSegment(slot);
    }

    /** Marks slot {@code slot}, written through {@link #slot}, as filled with the clip {@code info} describes. */
    public static void commit(ClipBatch batch, int slot, ClipInfo info) {
        Objects.requireNonNull(info, "info");
        batch.setClip(slot, info);
    }

    /**
     * Fills slots {@code 0..n-1} ({@code n = infos.size()}) at once from {@code data}, clips already in the
     * batch's layout: another batch's {@link ClipBatch#data()} of the same shape (sent from another process,
     * say). One copy, whatever the layout (every layout keeps each clip contiguous).
     *
     * @throws IllegalArgumentException if {@code data} is not exactly {@code n} clips, or {@code n} more than fit
     */
    public static void putAll(ClipBatch batch, MemorySegment data, List<ClipInfo> infos) {
        BatchShape shape = batch.batchShape();
        int n = infos.size();
        if (n > shape.clipsPerBatch() || data.byteSize() != n * shape.clipBytes()) {
            throw new IllegalArgumentException("data: " + data.byteSize() + " bytes for " + n + " clips (expected: "
                    + n + " x " + shape.clipBytes() + " bytes, at most " + shape.clipsPerBatch() + " clips)");
        }
        MemorySegment.copy(data, 0, batch.firstSlots(n), 0, data.byteSize());
        for (int i = 0; i < n; i++) {
            batch.setClip(i, Objects.requireNonNull(infos.get(i), "infos[" + i + "]"));
        }
    }

    /**
     * THWC to CTHW, one source row at a time: a bulk copy onto the heap, a de-interleave in plain array
     * code that the JIT compiles tightly, and one bulk copy per channel row out. Per-byte segment access
     * would be several times slower.
     */
    private static void transposeToChannelPlanes(MemorySegment source, MemorySegment destination, BatchShape shape) {
        int width = shape.width();
        int channels = shape.channels();
        long planeBytes = (long) shape.frames() * shape.height() * width;
        int rows = shape.frames() * shape.height();
        byte[] packed = new byte[width * channels];
        byte[][] planar = new byte[channels][width];
        for (int row = 0; row < rows; row++) {
            MemorySegment.copy(source, ValueLayout.JAVA_BYTE, (long) row * packed.length, packed, 0, packed.length);
            for (int c = 0; c < channels; c++) {
                byte[] plane = planar[c];
                for (int x = 0, i = c; x < width; x++, i += channels) {
                    plane[x] = packed[i];
                }
            }
            long rowOffset = (long) row * width;
            for (int c = 0; c < channels; c++) {
                MemorySegment.copy(planar[c], 0, destination, ValueLayout.JAVA_BYTE, c * planeBytes + rowOffset, width);
            }
        }
    }
}
