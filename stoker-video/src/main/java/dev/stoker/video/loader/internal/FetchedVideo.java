package dev.stoker.video.loader.internal;


/** A video's bytes, read into memory by the fetch stage so that demux does no I/O. */
public record FetchedVideo(VideoTask task, byte[] bytes) {
    @Override
    public String toString() {
        return task.toString();
    }
}
