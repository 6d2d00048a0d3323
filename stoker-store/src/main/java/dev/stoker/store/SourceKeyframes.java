package dev.stoker.store;

import dev.stoker.loader.clip.KeyframeIndex;
import dev.stoker.store.internal.SampleInfo;
import dev.stoker.store.internal.ShardException;
import dev.stoker.store.shard.internal.RecordEntry;
import dev.stoker.store.shard.ShardFile;
import java.util.Arrays;

/**
 * A stored sample's frames, timed as {@link dev.stoker.video.Video#fromPackets} times them, with the keyframes of the
 * video it was ingested from ({@link RecordEntry#sourceKeyframes()}): a decode budget draws the same clip starts from
 * it as from the source video's own index.
 */
final class SourceKeyframes {
    private SourceKeyframes() {
    }

    static KeyframeIndex of(ShardFile shard, SampleInfo sample) {
        RecordEntry entry = shard.entry(sample.record());
        if (entry.sourceKeyframes() == null) {
            throw new ShardException(shard.name(), sample.record(), ShardException.Reason.VERSION, "the record does not list"
                    + " its source's keyframes, which a decode budget (maxLeadFrames) draws clip starts from (expected:"
                    + " shards from a stoker ingest that records them; ingest again)");
        }
        long[] pts = entry.pts().clone();
        Arrays.sort(pts);
        int distinct = 0;
        for (int i = 0; i < pts.length; i++) {
            if (i == 0 || pts[i] != pts[i - 1]) {
                pts[distinct++] = pts[i];
            }
        }
        double tick = (double) entry.timeBaseNumerator() / entry.timeBaseDenominator();
        double[] seconds = new double[distinct];
        for (int i = 0; i < distinct; i++) {
            seconds[i] = (pts[i] - pts[0]) * tick;
        }
        int frames = distinct;
        int[] keys = Arrays.stream(entry.sourceKeyframes()).filter(k -> k < frames).toArray();
        return KeyframeIndex.of(seconds, keys);
    }
}
