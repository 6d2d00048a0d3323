package dev.stoker.store.loader;

import dev.stoker.loader.dataset.internal.SampleDraw;
import dev.stoker.store.internal.SampleInfo;

/** A sample to load: the sampler's draw; {@code firstClip} clips of it were delivered before a resume. */
record SampleTask(SampleInfo sample, SampleDraw draw, int firstClip) {
    int epoch() { return draw.epoch(); }

    /** Prints as its source path, shard and record, which failure reports show. */
    @Override
    public String toString() {
        return sample.sourcePath() + " (" + sample.shard() + " record " + sample.record() + ")";
    }
}
