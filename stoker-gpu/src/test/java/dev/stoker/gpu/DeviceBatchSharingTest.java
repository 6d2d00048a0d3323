package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.batch.BatchLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * CUDA IPC of device batches without a GPU, on a fake of the driver's IPC calls: each slot (device batch buffer) is
 * exported once, whatever number of batches pass through it, and its handle goes to the consumer with the slot's first
 * batch only; the consumer's release event of a slot is opened once, with its first release, and every release of the
 * slot waits on it; closing destroys the opened events. What only a GPU shows (the handles open in another process,
 * the tensor aliases the slot, the event orders the consumer's stream before the loader's next write) is
 * bench/gpu/ipc_check.py's, which on-device.sh runs.
 */
class DeviceBatchSharingTest {
    static final class FakeIpc implements DeviceBatchSharing.Ipc {
        final List<Long> exported = new ArrayList<>();
        final List<Long> opened = new ArrayList<>();
        final List<Long> waited = new ArrayList<>();
        final List<Long> destroyed = new ArrayList<>();

        @Override
        public byte[] memoryHandle(long devicePointer) {
            exported.add(devicePointer);
            byte[] handle = new byte[CudaDriver.IPC_HANDLE_BYTES];
            Arrays.fill(handle, (byte) devicePointer);
            return handle;
        }

        @Override
        public long openEvent(byte[] handle) {
            long event = 1000 + handle[0];
            opened.add(event);
            return event;
        }

        @Override
        public void synchronize(long event) {
            waited.add(event);
        }

        @Override
        public void destroyEvent(long event) {
            destroyed.add(event);
        }
    }

    static DeviceBatch batch(long pointer) {
        return new DeviceBatch(0, pointer, 64, new long[] {1, 4, 2, 2, 2}, BatchLayout.NTHWC, new int[] {0}, List.of(),
                0, null, () -> { });
    }

    static String handle(int b) {
        byte[] h = new byte[CudaDriver.IPC_HANDLE_BYTES];
        Arrays.fill(h, (byte) b);
        return HexFormat.of().formatHex(h);
    }

    @Test
    void eachSlotIsExportedOnceAndItsHandleTravelsWithItsFirstBatchOnly() {
        FakeIpc ipc = new FakeIpc();
        try (DeviceBatchSharing sharing = new DeviceBatchSharing(ipc)) {
            DeviceBatchSharing.Shared first = sharing.share(batch(0x11));
            DeviceBatchSharing.Shared second = sharing.share(batch(0x22));
            DeviceBatchSharing.Shared again = sharing.share(batch(0x11));
            assertThat(first).isEqualTo(new DeviceBatchSharing.Shared(0, "11".repeat(64)));
            assertThat(second).isEqualTo(new DeviceBatchSharing.Shared(1, "22".repeat(64)));
            assertThat(again).isEqualTo(new DeviceBatchSharing.Shared(0, null));
            assertThat(ipc.exported).containsExactly(0x11L, 0x22L);
            assertThat(sharing.slotOf(batch(0x22))).isEqualTo(1);
            assertThat(sharing.slots()).isEqualTo(2);
        }
    }

    @Test
    void aReleaseWaitsOnTheConsumersEventForTheSlotOpenedOnce() {
        FakeIpc ipc = new FakeIpc();
        try (DeviceBatchSharing sharing = new DeviceBatchSharing(ipc)) {
            sharing.share(batch(0x11));
            sharing.share(batch(0x22));
            sharing.release(0, handle(7));
            sharing.release(0, null);
            sharing.release(1, null);          // no GPU work on it: nothing to wait for
            sharing.release(1, handle(9));
            assertThat(ipc.opened).containsExactly(1007L, 1009L);
            assertThat(ipc.waited).containsExactly(1007L, 1007L, 1009L);
            assertThatThrownBy(() -> sharing.release(3, null)).hasMessage("slot: 3 (expected: 0..1, one shared)");
            sharing.share(batch(0x33));
            assertThatThrownBy(() -> sharing.release(2, "abcd"))
                    .hasMessage("release event of slot 2: 2 bytes (expected: 64, a CUipcEventHandle)")
                    .satisfies(e -> assertThat(ipc.opened).hasSize(2));
        }
        assertThat(ipc.destroyed).containsExactlyInAnyOrder(1007L, 1009L);
    }

    @Test
    void onlyACudaDeviceSharesItsMemory() {
        assertThatThrownBy(() -> DeviceBatchSharing.on(new FakeDevice(true)))
                .hasMessage("device: fake:0 (expected: a CUDA device; IPC shares CUDA memory)");
    }
}
