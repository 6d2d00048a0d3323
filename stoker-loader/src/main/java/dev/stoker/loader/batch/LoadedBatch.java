package dev.stoker.loader.batch;

import java.util.List;

/**
 * A batch as every loader hands it out, wherever its pixels are: {@link ClipBatch} in host memory, a device
 * batch in GPU memory. What a consumer that does not touch the pixels (a benchmark, a report, a bridge
 * deciding where to copy from) reads, and the one close that gives the buffer back.
 */
public interface LoadedBatch extends AutoCloseable {
    /** The clips in the batch, in order: path, label, clip times, decode cost. */
    List<ClipInfo> clips();

    /** Clips in the batch (the first dimension of {@link #shape()}). */
    int clipCount();

    /** One label per clip. */
    int[] labels();

    /** {@code [n, T, H, W, C]} or {@code [n, C, T, H, W]} per {@link #layout()}. */
    long[] shape();

    BatchLayout layout();

    /** Gives the buffer back to its pool. Idempotent. */
    @Override
    void close();
}
