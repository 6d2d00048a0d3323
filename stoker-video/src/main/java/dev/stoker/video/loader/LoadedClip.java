package dev.stoker.video.loader;

import dev.stoker.video.DecodedClip;
import dev.stoker.video.batch.ClipBatch;

/**
 * One decoded, converted clip waiting to be collated: its pixels sit in a pooled one-clip buffer
 * (THWC RGB24), returned to the pool on {@link #close()}.
 */
record LoadedClip(VideoTask task, double startSeconds, ClipBatch pixels, DecodedClip decoded) implements AutoCloseable {
    @Override
    public void close() {
        pixels.close();
    }

    @Override
    public String toString() {
        return task + " @" + startSeconds + "s";
    }
}
