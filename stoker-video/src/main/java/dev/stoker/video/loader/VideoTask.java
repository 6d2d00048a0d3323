package dev.stoker.video.loader;

import dev.stoker.video.dataset.VideoEntry;

/** A video to load in an epoch: the source's item. Prints as its path, which is what failure reports show. */
record VideoTask(VideoEntry entry, int index, int epoch) {
    @Override
    public String toString() {
        return entry.path().toString();
    }
}
