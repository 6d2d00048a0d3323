package dev.stoker.pipeline.subprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.pipeline.Pipeline;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A stopped consumer stops the child: the rings and the child's queues bound how far it runs ahead. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SubprocessBackpressureTest {

    @Test
    void aStoppedConsumerBoundsHowFarTheChildRunsAhead() {
        AtomicInteger pulled = new AtomicInteger();
        AtomicReference<Thread> reader = new AtomicReference<>();
        Iterator<byte[]> endless = new Iterator<>() {
            @Override public boolean hasNext() { return true; }
            @Override public byte[] next() {
                reader.compareAndSet(null, Thread.currentThread());
                pulled.incrementAndGet();
                return new byte[1000];
            }
        };
        // 16 KiB rings hold about 15 items of 1000 bytes each way.
        try (Pipeline<Object> p = Pipeline.<Object>from(endless)
                .map("same", TestStages.Identity.class, "", s -> s.concurrency(2))
                .isolate(ChildJvm.options(ItemCodecs.BYTES, ItemCodecs.BYTES).ringBytes(16 << 10)
                        .reportInterval(Duration.ofMillis(20)))
                .build()) {
            p.iterator().next();   // running; now the consumer stops
            int ahead = awaitSourceAtRest(pulled, reader);
            // items ring (~15) + child queues, sink and outbox (~25) + results ring (~15) + parent hand-offs (~10)
            assertThat(ahead).as("items read ahead of a stopped consumer").isBetween(20, 120);
            long childIn = p.stats().stage("child:same").itemsIn();
            assertThat(childIn).as("the child's stage stopped too").isLessThan(ahead);
            assertThat(waiting(reader.get())).as("the source's reader, still waiting for room").isTrue();
            assertThat(pulled.get()).isEqualTo(ahead);
        }
    }

    /**
     * Waits until the thread reading the source waits for room (its state, not a sleep) with its count unmoved over
     * many looks in a row: the source stopped being read. Returns the items read.
     */
    private static int awaitSourceAtRest(AtomicInteger pulled, AtomicReference<Thread> reader) {
        int[] last = {-1};
        int[] stillLooks = {0};
        ChildJvm.await("the source to stop being read", () -> {
            int now = pulled.get();
            Thread t = reader.get();
            if (now == last[0] && t != null && waiting(t)) {
                stillLooks[0]++;
            } else {
                stillLooks[0] = 0;
                last[0] = now;
            }
            return stillLooks[0] >= 50;
        }, Duration.ofSeconds(40));
        return last[0];
    }

    private static boolean waiting(Thread t) {
        return t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING;
    }
}
