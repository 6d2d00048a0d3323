package dev.stoker.video.loader.internal;

import dev.stoker.video.DecodedClip;
import dev.stoker.video.batch.ClipBatch;
import dev.stoker.video.loader.VideoTask;

/**
 * One decoded, converted clip waiting to be collated: its pixels sit in a pooled one-clip buffer
 * (THWC RGB24), returned to the pool on {@link #close()}. {@code clip} is its ordinal among the
 * {@code clipsOfVideo} clips of its video this epoch (what exact resume counts).
 */
public record LoadedClip(VideoTask task, int clip, int clipsOfVideo, double startSeconds, ClipBatch pixels, DecodedClip decoded) implements AutoCloseable {
    @Override
    public void close() {
        pixels.close();
    }

    @Override
    public String toString() {
        return task + " @" + startSeconds + "s";
    }
}
