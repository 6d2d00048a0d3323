package dev.stoker.video.loader.internal;

import dev.stoker.video.Video;

/** A demuxed video with the clip starts sampled for it; owns the {@link Video} until decoded. */
public record OpenedVideo(VideoTask task, Video video, double[] clipStarts) implements AutoCloseable {
    @Override
    public void close() {
        video.close();
    }

    @Override
    public String toString() { return task.toString(); }
}
