package dev.stoker.store.internal;

import dev.stoker.store.ShardDataset;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * One sample of an ingested {@link ShardDataset}: what a sampler needs to plan clips without touching
 * the shard's payload.
 *
 * @param index            position in the shard dataset, {@code 0..size()-1} (sorted source order,
 *                         bad sources left out)
 * @param label            class index into {@link ShardDataset#classNames()}
 * @param className        the class name the label stands for
 * @param frameCount       frames stored for the sample (clip frame indices run {@code 0..frameCount-1})
 * @param framesPerSecond  the stored frame rate (the ingest's {@code --fps}, else the source's)
 * @param durationSeconds  stored duration: last frame time plus one frame
 * @param width            stored frame width in pixels
 * @param height           stored frame height in pixels
 * @param sourcePath       the video it was ingested from
 * @param sourceIndex      its index in the source dataset's sorted order
 * @param shard            the shard file name holding it
 * @param record           its record number inside that shard
 * @param text             its text in the source dataset (a caption); empty when none
 */
public record SampleInfo(int index, int label, String className, int frameCount, double framesPerSecond,
                         double durationSeconds, int width, int height, Path sourcePath, int sourceIndex,
                         String shard, int record, Optional<String> text) {
    public SampleInfo {
        Objects.requireNonNull(className, "className");
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(sourcePath, "sourcePath");
        Objects.requireNonNull(shard, "shard");
    }
}
