package dev.stoker.gpu;

import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.video.loader.internal.VideoTask;

/**
 * One clip decoded into a device clip buffer, waiting to be collated: the GPU twin of the CPU loader's
 * pooled one-clip buffers. {@code clip} is its ordinal among the {@code clipsOfVideo} clips of its video
 * this epoch (what exact resume counts); {@code path} what decoded it. {@link #close()} gives the buffer back.
 */
record DeviceClip(VideoTask task, int clip, int clipsOfVideo, ClipInfo info, DeviceBufferPool.Buffer buffer, DecodePath path)
        implements AutoCloseable {
    @Override
    public void close() {
        buffer.close();
    }

    @Override
    public String toString() {
        return task + " clip " + clip;
    }
}
