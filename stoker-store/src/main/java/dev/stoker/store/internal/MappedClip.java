package dev.stoker.store.internal;

import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import dev.stoker.store.ClipReader;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.Verification;
import java.lang.foreign.MemorySegment;

/**
 * A clip whose pixels are a plain cut of stored RGB24 frames in a mapped shard ({@code raw} shards read at
 * their stored scale): what {@link ClipReader#locate} gives instead of copying, so that the pixels are copied
 * once, straight to where they are consumed (a batch slot). Its packets were verified as the dataset's
 * {@link Verification} says when it was located. Valid while its {@link ShardDataset} is open.
 *
 * @param clip           what the clip holds (frames, timestamps, size), as a read would have returned it
 * @param payload        the record's stored frames
 * @param cutOffsets     for each output frame, where the cut's first row starts in {@code payload}
 * @param storedRowBytes bytes of one stored row
 * @param rowBytes       bytes of one output row (at most {@code storedRowBytes})
 * @param rows           output rows per frame
 * @param mirrored       whether the clip is mirrored left to right ({@link Resize.Framing#mirrored()})
 */
public record MappedClip(DecodedClip clip, MemorySegment payload, long[] cutOffsets, long storedRowBytes, long rowBytes,
                         int rows, boolean mirrored) {

    /** Bytes {@link #copyTo} writes: frames × height × width × 3. */
    public long byteSize() {
        return cutOffsets.length * frameBytes();
    }

    /**
     * Copies the clip into {@code destination}, RGB24 HWC, frame k at {@code k * width * height * 3}: one bulk
     * copy per frame when the cut spans whole stored rows (the output is the stored width), else one per row; a
     * mirrored clip's rows are mirrored as they are copied ({@link Resize#mirrorRows}).
     *
     * @throws IllegalArgumentException if {@code destination} is smaller than {@link #byteSize()}
     */
    public void copyTo(MemorySegment destination) {
        long frameBytes = frameBytes();
        if (destination.byteSize() < byteSize()) {
            throw new IllegalArgumentException("destination: " + destination.byteSize() + " bytes (expected: "
                    + byteSize() + "+ for " + cutOffsets.length + " frames of " + clip.width() + "x" + clip.height()
                    + " RGB24)");
        }
        byte[] mirrorRow = mirrored ? new byte[(int) rowBytes + 1] : null;
        for (int k = 0; k < cutOffsets.length; k++) {
            long to = k * frameBytes;
            if (mirrored) {
                Resize.mirrorRows(payload, cutOffsets[k], storedRowBytes, destination, to, clip.width(), rows, mirrorRow);
            } else if (rowBytes == storedRowBytes) {
                MemorySegment.copy(payload, cutOffsets[k], destination, to, frameBytes);
            } else {
                long from = cutOffsets[k];
                for (int row = 0; row < rows; row++, from += storedRowBytes, to += rowBytes) {
                    MemorySegment.copy(payload, from, destination, to, rowBytes);
                }
            }
        }
    }

    private long frameBytes() {
        return rowBytes * rows;
    }
}
