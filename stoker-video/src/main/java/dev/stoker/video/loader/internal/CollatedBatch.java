package dev.stoker.video.loader.internal;

import dev.stoker.loader.ResumeTracker;
import dev.stoker.loader.batch.ClipBatch;

/**
 * A batch as the collate stage makes it in a child JVM, with where in the epoch it ends (the last clip's
 * video and ordinal), which the loader's resume state needs once the batch is handed out: the child's output
 * when the loader is split after collate. Closing closes the batch.
 *
 * @param clip         the last clip's ordinal among the {@code clipsOfVideo} clips of its video this epoch
 */
public record CollatedBatch(ClipBatch batch, int epoch, int position, int clip, int clipsOfVideo) implements AutoCloseable {
    /** Notes the batch's end in {@code resume} and hands the batch on. */
    public ClipBatch handOver(ResumeTracker resume) {
        resume.collated(batch, epoch, position, clip, clipsOfVideo);
        return batch;
    }

    @Override
    public void close() {
        batch.close();
    }

    @Override
    public String toString() {
        return batch + " ending at epoch " + epoch + " position " + position + " clip " + clip;
    }
}
