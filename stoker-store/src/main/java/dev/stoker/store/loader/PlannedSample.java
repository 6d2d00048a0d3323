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
import dev.stoker.video.loader.HostBatchLoader;
import dev.stoker.video.loader.LoaderOptions;
import dev.stoker.video.loader.MemoryPlan;
import dev.stoker.video.loader.ResumeTracker;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * A sample with its clip starts chosen (those after {@code firstClip}), and each start's decode lead in the source
 * video (-1 when not known).
 */
record PlannedSample(SampleTask task, double[] clipStarts, int[] leadFrames) {
    @Override
    public String toString() {
        return task.toString();
    }
}
