package dev.stoker.pipeline.subprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.pipeline.Pipeline;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Outputs decoded into a pool of this process (as the loader's batches are): a decode that waits for a
 * buffer must not hold back the outputs that would free one, down to a pool of one buffer.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SubprocessPooledOutputTest {

    /** A string holding one permit of a pool until closed. */
    record Pooled(String text, Semaphore pool) implements AutoCloseable {
        @Override
        public void close() {
            pool.release();
        }
    }

    /** Encodes strings (the child's side); decodes each into a permit of {@code pool} (this side), waiting for one. */
    public static final class PooledCodec implements ItemCodec<Object> {
        private final Semaphore pool;

        public PooledCodec() {
            this(null);
        }

        PooledCodec(Semaphore pool) {
            this.pool = pool;
        }

        @Override
        public long encodedBytes(Object item) {
            return ItemCodecs.STRING.encodedBytes((String) item);
        }

        @Override
        public void encode(Object item, MemorySegment target) {
            ItemCodecs.STRING.encode((String) item, target);
        }

        @Override
        public Object decode(MemorySegment source) {
            pool.acquireUninterruptibly();
            return new Pooled(ItemCodecs.STRING.decode(source), pool);
        }
    }

    @Test
    void aPoolOfOneBufferIsEnoughWhenTheConsumerClosesEachOutputBeforeTheNext() {
        Semaphore pool = new Semaphore(1);
        List<String> source = IntStream.range(0, 200).mapToObj(i -> "w" + i).toList();
        List<String> got = new ArrayList<>();
        try (Pipeline<Object> p = Pipeline.<Object>from(source).map("same", TestStages.Identity.class, "")
                .isolate(ChildJvm.options(ItemCodecs.STRING, new PooledCodec(pool))).build()) {
            for (Object o : p) {
                try (Pooled item = (Pooled) o) {
                    got.add(item.text());
                }
            }
        }
        assertThat(got).containsExactlyInAnyOrderElementsOf(source);
        assertThat(pool.availablePermits()).isEqualTo(1);
    }
}
