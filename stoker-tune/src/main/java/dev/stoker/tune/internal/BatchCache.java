package dev.stoker.tune.internal;

import dev.stoker.tune.Headspace;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * How {@link Headspace} hands a loader's batches to the training step, and keeps copies of the first
 * few to replay them with no loading at all.
 *
 * <p>A loader batch {@code B} is lent to the step as a view {@code V} and released as soon as the step
 * returns; a copy is a {@code V} that the cache owns and that stays valid after its source batch is
 * released, until {@link #releaseCopy}. For pooled off-heap batches the copy must own its own memory
 * (the pool reuses the source's buffer); for immutable heap batches {@link #retaining()} keeps the
 * batch itself.
 *
 * @param <B> the loader's batch type
 * @param <V> what the training step receives: a view of a live batch, or a copy
 */
public interface BatchCache<B, V> {

    /** The step's view of a live loader batch, valid until {@link #release} of that batch. */
    V view(B batch);

    /** A copy owned by the cache, valid after {@code batch} is released, until {@link #releaseCopy}. */
    V copy(B batch);

    /** Done with a loader batch (its step has run or it has been copied): e.g. close a pooled buffer. */
    void release(B batch);

    /** Done with a copy: frees what {@link #copy} allocated. */
    void releaseCopy(V copy);

    /** For batches that stay valid when kept (heap objects the loader does not reuse): no copies, no releases. */
    static <B> BatchCache<B, B> retaining() {
        return of(Function.identity(), Function.identity(), b -> { }, c -> { });
    }

    /** For {@code AutoCloseable} batches the step may see as they are: copies by {@code copier}, closes both. */
    static <B extends AutoCloseable> BatchCache<B, B> closing(Function<? super B, ? extends B> copier) {
        return of(Function.identity(), copier, BatchCache::closeQuietly, BatchCache::closeQuietly);
    }

    /** A cache of four functions. */
    static <B, V> BatchCache<B, V> of(Function<? super B, ? extends V> view, Function<? super B, ? extends V> copy,
                                      Consumer<? super B> release, Consumer<? super V> releaseCopy) {
        Objects.requireNonNull(view, "view");
        Objects.requireNonNull(copy, "copy");
        Objects.requireNonNull(release, "release");
        Objects.requireNonNull(releaseCopy, "releaseCopy");
        return new BatchCache<>() {
            @Override
            public V view(B batch) {
                return view.apply(batch);
            }

            @Override
            public V copy(B batch) {
                return copy.apply(batch);
            }

            @Override
            public void release(B batch) {
                release.accept(batch);
            }

            @Override
            public void releaseCopy(V c) {
                releaseCopy.accept(c);
            }
        };
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("closing " + c + ": " + e.getMessage(), e);
        }
    }
}
