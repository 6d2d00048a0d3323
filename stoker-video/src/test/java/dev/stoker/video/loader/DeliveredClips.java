package dev.stoker.video.loader;

import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * What a loader delivers, as text two runs can be compared by (each clip's file and first frame time, in order),
 * or as the clips' sources.
 */
public final class DeliveredClips {
    private DeliveredClips() {
    }

    /** Takes every batch of {@code batches} (closing each): {@code clip.mp4@1.25} per clip. */
    public static List<String> of(Iterable<ClipBatch> batches) {
        return whileCount(batches, n -> true);
    }

    /** As {@link #of}, batch by batch while {@code more} holds for the clips taken so far (an endless loader's). */
    public static List<String> whileCount(Iterable<ClipBatch> batches, IntPredicate more) {
        List<String> seen = new ArrayList<>();
        for (Iterator<ClipBatch> it = batches.iterator(); more.test(seen.size()) && it.hasNext(); ) {
            try (ClipBatch batch = it.next()) {
                for (ClipInfo c : batch.clips()) {
                    seen.add(c.path().getFileName() + "@" + c.frameTimestampsSeconds()[0]);
                }
            }
        }
        return seen;
    }

    /** Takes every batch of {@code batches} (closing each): each clip's source, in order. */
    public static List<Path> sources(Iterable<ClipBatch> batches) {
        List<Path> sources = new ArrayList<>();
        for (ClipBatch batch : batches) {
            try (batch) {
                batch.clips().stream().map(ClipInfo::path).forEach(sources::add);
            }
        }
        return sources;
    }
}
