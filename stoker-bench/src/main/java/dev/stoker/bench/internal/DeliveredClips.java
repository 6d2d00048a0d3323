package dev.stoker.bench.internal;

import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.batch.LoadedBatch;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The delivered clips a run's {@link Yardsticks} are measured on, kept as the run takes its batches: the first
 * batch's clips, and the first delivered clip of every video (up to a limit). Every video is sampled equally
 * often over epochs, and a clip's cost depends mostly on its video (codec, size; an AV1 clip costs ten H.264
 * ones), so one clip a video is the run's own mix; a random handful of clips was not (the single-thread
 * reference swung by a third between runs).
 */
public final class DeliveredClips implements SteadyStateRun.BatchStep<LoadedBatch> {
    private final int maxVideos;
    private final Map<Path, ClipInfo> onePerVideo = new LinkedHashMap<>();
    private final List<ClipInfo> firstBatch = new ArrayList<>();

    /** Keeps a clip of at most {@code maxVideos} videos. */
    public DeliveredClips(int maxVideos) {
        this.maxVideos = maxVideos;
    }

    @Override
    public void accept(long index, LoadedBatch batch) {
        if (index == 0) {
            firstBatch.addAll(batch.clips());
        }
        for (ClipInfo clip : batch.clips()) {
            if (onePerVideo.size() < maxVideos) {
                onePerVideo.putIfAbsent(clip.path(), clip);
            }
        }
    }

    /** The first batch's clips, in order (empty before it). */
    public List<ClipInfo> firstBatch() {
        return List.copyOf(firstBatch);
    }

    /** The first delivered clip of each video, in delivery order. */
    public List<ClipInfo> onePerVideo() {
        return List.copyOf(onePerVideo.values());
    }
}
