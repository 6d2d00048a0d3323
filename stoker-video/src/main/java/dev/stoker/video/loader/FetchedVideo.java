package dev.stoker.video.loader;

/** A video's bytes, read into memory by the fetch stage so that demux does no I/O. */
record FetchedVideo(VideoTask task, byte[] bytes) {
    @Override
    public String toString() {
        return task.toString();
    }
}
