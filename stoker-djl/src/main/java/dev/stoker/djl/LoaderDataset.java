package dev.stoker.djl;

import ai.djl.ndarray.NDManager;
import ai.djl.training.dataset.Batch;
import ai.djl.training.dataset.Dataset;
import ai.djl.util.Progress;
import dev.stoker.pipeline.Failure;
import dev.stoker.video.batch.ClipBatch;
import dev.stoker.video.dataset.SamplerState;
import dev.stoker.video.loader.ClipLoader;
import dev.stoker.video.loader.LoaderOptions;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
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
 * to the loader's pool. An epoch ends after the batch that moves {@link ClipLoader#state()} into the next
 * epoch; it is short when the loader skipped failed samples at its end. Resume as in Java: save
 * {@link #state()} with a checkpoint, reopen the loader with {@code resume(dataset, options, state)}, wrap
 * it again. {@link #failures()} lists the samples skipped so far (path, stage, reason).
 *
 * <p>The loader is the caller's: closing it is too. One iteration at a time.
 *
 * @param <B> the loader's batch type
 */
public final class LoaderDataset<B> implements Dataset {

    /** A loader batch as DJL arrays in a sub-manager of {@code parent}; the arrays own the batch from then on. */
    @FunctionalInterface
    public interface Converter<B> {
        BatchArrays convert(B batch, NDManager parent);
    }

    private final ClipLoader<B> loader;
    private final Converter<? super B> converter;
    private final long batchesPerEpoch;
    private final Iterator<B> batches;

    private LoaderDataset(ClipLoader<B> loader, Converter<? super B> converter, LoaderOptions options) {
        this.loader = Objects.requireNonNull(loader, "loader");
        this.converter = Objects.requireNonNull(converter, "converter");
        // For DJL's progress bars: clips of a full epoch over the batch size (the last batch may be short).
        long clips = (long) loader.sampler().samplesPerEpoch() * options.clip().clipsPerVideo();
        this.batchesPerEpoch = (clips + options.batch().size() - 1) / options.batch().size();
        this.batches = loader.iterator();
    }

    /** A loader of host batches opened with {@code options}, converted zero-copy on the CPU ({@link ClipArrays#of}). */
    public static LoaderDataset<ClipBatch> of(ClipLoader<ClipBatch> loader, LoaderOptions options) {
        return new LoaderDataset<>(loader, ClipArrays::of, options);
    }

    /** Any loader opened with {@code options}, with the conversion of its batch type. */
    public static <B> LoaderDataset<B> of(ClipLoader<B> loader, LoaderOptions options, Converter<? super B> converter) {
        return new LoaderDataset<>(loader, converter, options);
    }

    /** The loader's next epoch; each batch's arrays are made in a sub-manager of {@code manager}. */
    @Override
    public Iterable<Batch> getData(NDManager manager) {
        int epoch = loader.state().epoch();
        return () -> new Iterator<>() {
            private long index;
            private boolean ended;

            @Override
            public boolean hasNext() {
                if (ended || loader.state().epoch() > epoch || !batches.hasNext()) {
                    ended = true;
                }
                return !ended;
            }

            @Override
            public Batch next() {
                if (!hasNext()) {
                    throw new NoSuchElementException("epoch " + epoch + " has ended");
                }
                BatchArrays arrays = converter.convert(batches.next(), manager);
                return arrays.toBatch(index++, batchesPerEpoch);
            }
        };
    }

    /** Nothing to prepare: the loader is already running. */
    @Override
    public void prepare(Progress progress) {
    }

    /** Where the consumer stands: the state after the last batch handed out, to resume from. */
    public SamplerState state() {
        return loader.state();
    }

    /** Samples skipped so far, each with its path, stage and reason. */
    public List<Failure> failures() {
        return loader.pipeline().failures();
    }

    public ClipLoader<B> loader() {
        return loader;
    }
}
