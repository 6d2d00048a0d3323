package dev.stoker.store.loader;

import dev.stoker.loader.CollatableClip;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.DecodedClip;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One clip read from a shard, waiting to be collated (its pixels in a pooled buffer or still in the mapped shard);
 * {@code clip} of {@code clipsOfSample} this epoch. {@code leadFrames}: its first frame's decode lead in the source
 * video (what the sampler drew it by; -1 when not known), not in the shard, whose own keyframes are the ingest's. The
 * video loader's counterpart is its {@code LoadedClip}.
 */
record ShardClip(SampleTask task, int clip, int clipsOfSample, ClipPixels pixels, DecodedClip decoded, int leadFrames)
        implements CollatableClip {
    @Override
    public Path sourcePath() {
        return task.sample().sourcePath();
    }

    @Override
    public int label() {
        return task.sample().label();
    }

    @Override
    public Optional<String> text() {
        return task.sample().text();
    }

    @Override
    public void writeTo(ClipBatch batch, int slot, ClipInfo info) {
        pixels.writeTo(batch, slot, info);
    }

    @Override
    public void close() {
        pixels.close();
    }

    @Override
    public String toString() { return task.toString(); }
}
