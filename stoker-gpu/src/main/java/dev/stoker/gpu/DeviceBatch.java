package dev.stoker.gpu;

import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.batch.LoadedBatch;
import java.util.List;

/**
 * A batch of clips in device memory, for a framework to wrap without a copy (a DLPack capsule, a
 * {@code torch.cuda} tensor from a pointer): uint8 values of {@code shape} in row-major order at
 * {@code devicePointer}, written by a copy on {@code stream} that {@code ready} marks.
 *
 * <p>{@link #close()} gives the device buffer back to the transfer stage for a later batch: close only
 * once the device work reading it has finished (synchronise your stream first).
 *
 * @param sequence      position in the loader's order, from 0
 * @param devicePointer {@code CUdeviceptr} of the first byte
 * @param byteSize      bytes of the filled clips
 * @param shape         {@code [n, T, H, W, C]} or {@code [n, C, T, H, W]} per {@code layout}
 * @param stream        the {@code CUstream} the copy ran on
 * @param ready         complete once the data is on the device
 * @param decodePaths   which path decoded each clip, in the clips' order
 */
public record DeviceBatch(long sequence, long devicePointer, long byteSize, long[] shape, BatchLayout layout,
                          int[] labels, List<ClipInfo> clips, long stream, GpuEvent ready, AutoCloseable release,
                          List<DecodePath> decodePaths) implements LoadedBatch {

    /** A batch whose clips were all decoded on the CPU (the {@link GpuLoader}'s). */
    public DeviceBatch(long sequence, long devicePointer, long byteSize, long[] shape, BatchLayout layout, int[] labels,
                       List<ClipInfo> clips, long stream, GpuEvent ready, AutoCloseable release) {
        this(sequence, devicePointer, byteSize, shape, layout, labels, clips, stream, ready, release,
                java.util.Collections.nCopies(clips.size(), DecodePath.CPU));
    }

    /** Clips in the batch (the first dimension). */
    @Override
    public int clipCount() { return clips.size(); }

    /** Gives the device buffer back. Idempotent. */
    @Override
    public void close() {
        Closeables.closeUnchecked(release, "device batch " + sequence);
    }

    @Override
    public String toString() {
        return "DeviceBatch[" + sequence + ", " + layout + " " + java.util.Arrays.toString(shape) + " at 0x"
                + Long.toHexString(devicePointer) + "]";
    }
}
