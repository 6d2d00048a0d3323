package dev.stoker.pipeline.subprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.pipeline.Pipeline;
import java.time.Duration;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A stopped consumer stops the child: the rings and the child's queues bound how far it runs ahead. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SubprocessBackpressureTest {

    @Test
    void aStoppedConsumerBoundsHowFarTheChildRunsAhead() throws InterruptedException {
        AtomicInteger pulled = new AtomicInteger();
        Iterator<byte[]> endless = new Iterator<>() {
            @Override public boolean hasNext() { return true; }
            @Override public byte[] next() {
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
            ChildJvm.await("the source to stop being read", () -> {
                int before = pulled.get();
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                return pulled.get() == before;
            }, Duration.ofSeconds(20));
            int ahead = pulled.get();
            // items ring (~15) + child queues, sink and outbox (~25) + results ring (~15) + parent hand-offs (~10)
            assertThat(ahead).as("items read ahead of a stopped consumer").isBetween(20, 120);
            long childIn = p.stats().stage("child:same").itemsIn();
            assertThat(childIn).as("the child's stage stopped too").isLessThan(ahead);
            Thread.sleep(300);
            assertThat(pulled.get()).isEqualTo(ahead);
        }
    }
}
