package dev.stoker.video.loader.internal;

import dev.stoker.loader.CollatableClip;
import dev.stoker.loader.batch.BatchCollator;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.DecodedClip;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One decoded, converted clip waiting to be collated: its pixels sit in a pooled one-clip buffer
 * (THWC RGB24), returned to the pool on {@link #close()}. {@code clip} is its ordinal among the
 * {@code clipsOfVideo} clips of its video this epoch (what exact resume counts).
 */
public record LoadedClip(VideoTask task, int clip, int clipsOfVideo, double startSeconds, ClipBatch pixels, DecodedClip decoded) implements CollatableClip {
    @Override
    public Path sourcePath() {
        return task.entry().path();
    }

    @Override
    public int label() {
        return task.entry().label();
    }

    @Override
    public Optional<String> text() {
        return task.entry().text();
    }

    @Override
    public void writeTo(ClipBatch batch, int slot, ClipInfo info) {
        BatchCollator.put(batch, slot, BatchCollator.slot(pixels, 0), info);
    }

    @Override
    public void close() {
        pixels.close();
    }

    @Override
    public String toString() {
        return task + " @" + startSeconds + "s";
    }
}
