package dev.stoker.djl;

import ai.djl.ndarray.NDManager;
import ai.djl.training.dataset.Batch;
import ai.djl.training.dataset.Dataset;
import ai.djl.util.Progress;
import dev.stoker.djl.internal.BatchArrays;
import dev.stoker.djl.internal.ClipArrays;
import dev.stoker.loader.ClipLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.LoadedBatch;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.pipeline.Failure;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;

/**
 * A running Stoker loader as a DJL {@link Dataset}: each {@link #getData} is the loader's next epoch, as
 * DJL {@link Batch}es, so {@code EasyTrain.fit(trainer, epochs, dataset, null)} and
 * {@code trainer.iterateDataset(dataset)} loops train on it. Works with any {@link ClipLoader}: for host
 * batches ({@code VideoLoader}, {@code ShardLoader}) {@link #of} converts with {@link ClipArrays#of}
 * (zero-copy on the CPU); another batch type ({@code NvdecLoader}'s device batches) brings its own
 * {@link Converter}.
 *
 * <p>Each DJL batch owns its loader batch: closing it (EasyTrain does after the step) returns the buffer
 * to the loader's pool. Each {@link #getData} is one {@link ClipLoader#nextEpoch()}. Resume as in Java: save
 * {@link #state()} with a checkpoint, reopen the loader with {@code Opening.defaults().resumingFrom(state)}, wrap
 * it again. {@link #failures()} lists the samples skipped so far (path, stage, reason).
 *
 * <p>The loader is the caller's: closing it is too. One iteration at a time.
 *
 * @param <B> the loader's batch type
 */
public final class LoaderDataset<B extends LoadedBatch> implements Dataset {

    /** A loader batch as DJL arrays in a sub-manager of {@code parent}; the arrays own the batch from then on. */
    @FunctionalInterface
    public interface Converter<B extends LoadedBatch> {
        BatchArrays convert(B batch, NDManager parent);
    }

    private final ClipLoader<B> loader;
    private final Converter<? super B> converter;
    private final long batchesPerEpoch;

    private LoaderDataset(ClipLoader<B> loader, Converter<? super B> converter, LoaderOptions options) {
        this.loader = Objects.requireNonNull(loader, "loader");
        this.converter = Objects.requireNonNull(converter, "converter");
        // For DJL's progress bars: clips of a full epoch over the batch size (the last batch may be short).
        long clips = (long) loader.sampler().samplesPerEpoch() * options.clipsPerVideo();
        this.batchesPerEpoch = (clips + options.batch().size() - 1) / options.batch().size();
    }

    /** A loader of host batches opened with {@code options}, converted zero-copy on the CPU ({@link ClipArrays#of}). */
    public static LoaderDataset<ClipBatch> of(ClipLoader<ClipBatch> loader, LoaderOptions options) {
        return new LoaderDataset<>(loader, ClipArrays::of, options);
    }

    /** Any loader opened with {@code options}, with the conversion of its batch type. */
    public static <B extends LoadedBatch> LoaderDataset<B> of(ClipLoader<B> loader, LoaderOptions options, Converter<? super B> converter) {
        return new LoaderDataset<>(loader, converter, options);
    }

    /** The loader's next epoch; each batch's arrays are made in a sub-manager of {@code manager}. */
    @Override
    public Iterable<Batch> getData(NDManager manager) {
        Iterator<B> epoch = loader.nextEpoch().iterator();
        return () -> new Iterator<>() {
            private long index;

            @Override
            public boolean hasNext() { return epoch.hasNext(); }

            @Override
            public Batch next() {
                return converter.convert(epoch.next(), manager).toBatch(index++, batchesPerEpoch);
            }
        };
    }

    /** Nothing to prepare: the loader is already running. */
    @Override
    public void prepare(Progress progress) {
    }

    /** Where the consumer stands: the state after the last batch handed out, to resume from. */
    public SamplerState state() { return loader.state(); }

    /** Samples skipped so far, each with its path, stage and reason. */
    public List<Failure> failures() { return loader.failures(); }

    public ClipLoader<B> loader() { return loader; }
}
