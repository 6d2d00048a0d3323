package dev.stoker.pipeline.subprocess.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class SharedRingTest {

    @Test
    void recordsComeOutInOrderAcrossWrapsWithHeaderAndPayloadIntact() {
        try (Arena arena = Arena.ofConfined()) {
            SharedRing ring = new SharedRing(arena.allocate(SharedRing.regionBytes(1024), 64));
            SharedRing.Record r = new SharedRing.Record();
            for (int i = 0; i < 1000; i++) {
                int bytes = (i * 37) % 300;
                MemorySegment target = ring.tryClaim(7, i, -i, bytes);
                assertThat(target).as("room in an empty ring").isNotNull();
                target.fill((byte) i);
                ring.commit();
                assertThat(ring.poll(r)).isTrue();
                assertThat(r.type).isEqualTo(7);
                assertThat(r.id).isEqualTo(i);
                assertThat(r.seq).isEqualTo(-i);
                assertThat(r.payload.byteSize()).isEqualTo(bytes);
                for (long b = 0; b < bytes; b++) {
                    assertThat(r.payload.get(ValueLayout.JAVA_BYTE, b)).isEqualTo((byte) i);
                }
                ring.release();
                assertThat(ring.poll(r)).isFalse();
            }
        }
    }

    @Test
    void aFullRingRefusesUntilTheConsumerReleases() {
        try (Arena arena = Arena.ofConfined()) {
            SharedRing ring = new SharedRing(arena.allocate(SharedRing.regionBytes(256), 64));
            int written = 0;
            while (ring.tryClaim(1, written, 0, 40) != null) {
                ring.commit();
                written++;
            }
            assertThat(written).isEqualTo(256 / 64);
            SharedRing.Record r = new SharedRing.Record();
            assertThat(ring.poll(r)).isTrue();
            assertThat(ring.tryClaim(1, 99, 0, 40)).as("the record is still being read").isNull();
            ring.release();
            assertThat(ring.tryClaim(1, 99, 0, 40)).isNotNull();
        }
    }

    @Test
    void aRecordLargerThanTheRingIsRefusedWithTheFix() {
        try (Arena arena = Arena.ofConfined()) {
            SharedRing ring = new SharedRing(arena.allocate(SharedRing.regionBytes(256), 64));
            assertThatThrownBy(() -> ring.tryClaim(1, 0, 0, 300)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("raise SubprocessOptions.ringBytes");
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aProducerAndAConsumerThreadPassManyRecordsWithoutLossOrTearing() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            SharedRing ring = new SharedRing(arena.allocate(SharedRing.regionBytes(4096), 64));
            int count = 100_000;
            AtomicReference<Throwable> error = new AtomicReference<>();
            Thread producer = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < count; i++) {
                    int bytes = 8 + (i % 5) * 8;
                    MemorySegment target;
                    while ((target = ring.tryClaim(1, i, i, bytes)) == null) {
                        Thread.yield();
                    }
                    for (int k = 0; k < bytes; k += 8) {
                        target.set(ValueLayout.JAVA_LONG, k, (long) i * 31 + k);
                    }
                    ring.commit();
                }
            });
            SharedRing.Record r = new SharedRing.Record();
            for (int i = 0; i < count; i++) {
                while (!ring.poll(r)) {
                    Thread.yield();
                }
                if (r.id != i || r.seq != i || r.payload.byteSize() != 8 + (i % 5) * 8) {
                    error.set(new AssertionError("record " + i + ": id " + r.id + " size " + r.payload.byteSize()));
                    break;
                }
                for (int k = 0; k < r.payload.byteSize(); k += 8) {
                    long v = r.payload.get(ValueLayout.JAVA_LONG, k);
                    if (v != (long) i * 31 + k) {
                        error.set(new AssertionError("record " + i + " torn at " + k + ": " + v));
                    }
                }
                ring.release();
            }
            producer.join();
            assertThat(error.get()).isNull();
        }
    }
}
