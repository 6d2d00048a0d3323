package dev.stoker.store.loader;

import dev.stoker.pipeline.EpochSource;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.Order;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineBuilder;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.StageConfig;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.store.ClipReader;
import dev.stoker.store.MappedClip;
import dev.stoker.store.SampleInfo;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.prefetch.PrefetchStats;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.ClipSpec;
import dev.stoker.video.DecodedClip;
import dev.stoker.video.Resize;
import dev.stoker.video.batch.BatchCollator;
import dev.stoker.video.batch.BatchLayout;
import dev.stoker.video.batch.BatchPool;
import dev.stoker.video.batch.BatchShape;
import dev.stoker.video.batch.ClipBatch;
import dev.stoker.video.batch.ClipInfo;
import dev.stoker.video.dataset.ClipSampler;
import dev.stoker.video.dataset.EpochSampler;
import dev.stoker.video.dataset.SampleDraw;
import dev.stoker.video.dataset.SampleGroups;
import dev.stoker.video.dataset.SamplerState;
import dev.stoker.video.dataset.VideoEntry;
import dev.stoker.video.loader.CollatableClip;
import dev.stoker.video.loader.HostBatchLoader;
import dev.stoker.video.loader.LoaderOptions;
import dev.stoker.video.loader.MemoryPlan;
import dev.stoker.video.loader.ResumeTracker;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * One clip read (its pixels in a pooled buffer or still in the mapped shard); {@code clip} of {@code clipsOfSample}
 * this epoch. {@code leadFrames}: its first frame's decode lead in the source video (what the sampler drew it by; -1
 * when not known), not in the shard, whose own keyframes are the ingest's.
 */
record LoadedClip(SampleTask task, int clip, int clipsOfSample, ClipPixels pixels, DecodedClip decoded, int leadFrames)
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
    public void writeTo(ClipBatch batch, int slot, ClipInfo info) {
        pixels.writeTo(batch, slot, info);
    }

    @Override
    public void close() {
        pixels.close();
    }

    @Override
    public String toString() {
        return task.toString();
    }
}
