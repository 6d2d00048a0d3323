package dev.stoker.video.loader.internal;

import dev.stoker.loader.dataset.VideoEntry;

/**
 * A video to load in an epoch: the source's item. Prints as its path, which is what failure reports show.
 *
 * @param index     the video's index in the dataset
 * @param epoch     the sampler's epoch
 * @param position  its position in this rank's epoch sequence
 * @param firstClip clips of this video to skip: a resumed run continues inside a video whose first
 *                  clips were delivered before the state was taken (0 otherwise)
 */
public record VideoTask(VideoEntry entry, int index, int epoch, int position, int firstClip) {
    @Override
    public String toString() {
        return entry.path().toString();
    }
}
