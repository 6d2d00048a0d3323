package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The device buffer pool's bookkeeping: lazy allocation up to its bound, waiting, giving back, freeing. */
@Timeout(20)
class DeviceBufferPoolTest {

    @Test
    void allocatesOnFirstNeedUpToItsBoundAndReusesWhatComesBack() throws InterruptedException {
        FakeDevice device = new FakeDevice(true);
        try (DeviceBufferPool pool = new DeviceBufferPool(device, "clip", 1000, 3)) {
            assertThat(pool.usage().buffersCreated()).isZero();
            DeviceBufferPool.Buffer a = pool.acquire();
            DeviceBufferPool.Buffer b = pool.acquire();
            assertThat(pool.usage().buffersCreated()).isEqualTo(2);
            assertThat(pool.usage().buffersInUse()).isEqualTo(2);
            assertThat(a.pointer()).isNotEqualTo(b.pointer());
            assertThat(a.byteSize()).isEqualTo(1000);
            long first = a.pointer();
            a.close();
            a.close(); // idempotent: given back once
            assertThat(pool.usage().buffersInUse()).isEqualTo(1);
            DeviceBufferPool.Buffer c = pool.acquire();
            assertThat(c.pointer()).as("the buffer that came back").isEqualTo(first);
            assertThat(pool.usage().buffersCreated()).isEqualTo(2);
            assertThat(device.deviceMemory).hasSize(2);
            b.close();
            c.close();
            assertThat(pool.usage().buffersInUse()).isZero();
            assertThat(pool.usage().acquires()).isEqualTo(3);
            assertThat(pool.usage().waits()).isZero();
        }
        assertThat(device.deviceMemory).as("freed on close").isEmpty();
    }

    @Test
    void anAcquireWaitsWhileEveryBufferIsOutAndGetsTheOneGivenBack() throws Exception {
        FakeDevice device = new FakeDevice(true);
        try (DeviceBufferPool pool = new DeviceBufferPool(device, "batch", 64, 1)) {
            DeviceBufferPool.Buffer only = pool.acquire();
            CompletableFuture<Long> waiting = CompletableFuture.supplyAsync(() -> {
                try (DeviceBufferPool.Buffer next = pool.acquire()) {
                    return next.pointer();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            while (pool.usage().waitingAcquires() == 0) {
                Thread.onSpinWait();
            }
            assertThat(waiting).isNotDone();
            long pointer = only.pointer();
            only.close();
            assertThat(waiting.get()).isEqualTo(pointer);
            assertThat(pool.usage().waits()).isEqualTo(1);
            assertThat(pool.usage().buffersCreated()).isEqualTo(1);
        }
    }

    @Test
    void closingFreesEveryBufferCountsThoseStillOutAndFailsWaiters() throws Exception {
        FakeDevice device = new FakeDevice(true);
        DeviceBufferPool pool = new DeviceBufferPool(device, "clip", 64, 2);
        DeviceBufferPool.Buffer kept = pool.acquire();
        pool.acquire().close();
        DeviceBufferPool.Buffer alsoKept = pool.acquire();
        CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> {
            try {
                pool.acquire();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(pool.closeAndCountOutstanding()).isEqualTo(2);
        assertThat(device.deviceMemory).isEmpty();
        assertThatThrownBy(waiter::get).isInstanceOf(ExecutionException.class)
                .hasRootCauseMessage("clip buffer pool (fake:0) is closed");
        kept.close(); // after close: harmless
        alsoKept.close();
        assertThat(pool.closeAndCountOutstanding()).isZero();
        assertThatThrownBy(pool::acquire).hasMessage("clip buffer pool (fake:0) is closed");
    }

    @Test
    void badSizesAreRefusedNamingTheValue() {
        FakeDevice device = new FakeDevice(true);
        assertThatThrownBy(() -> new DeviceBufferPool(device, "clip", 0, 1)).hasMessage("bufferBytes: 0 (expected: 1+)");
        assertThatThrownBy(() -> new DeviceBufferPool(device, "clip", 1, 0)).hasMessage("maxBuffers: 0 (expected: 1+)");
    }
}
