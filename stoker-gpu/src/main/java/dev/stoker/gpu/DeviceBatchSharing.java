package dev.stoker.gpu;

import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * Device batches handed to another process on the same GPU by CUDA IPC, with no trip through the host: each device
 * batch buffer (a slot) is exported once ({@code cuIpcGetMemHandle}); the consumer opens each handle once and wraps
 * the slot as a tensor. When it is done with a batch it records an interprocess event of its own for the slot on the
 * stream that used it and says so, sending the event's handle with the slot's first release; {@link #release} opens
 * that handle once ({@code cuIpcOpenEventHandle}) and waits on the event before the slot goes back to the loader, so
 * the loader never writes a slot the consumer's GPU work still reads. (Each process records only events it made, and
 * waits on the other's: the pattern CUDA IPC events are made for.) A batch is complete on the device when it is handed
 * over: the collate stage waited for its copies. Not thread-safe; one per serving session.
 */
public final class DeviceBatchSharing implements AutoCloseable {
    private final Ipc ipc;
    private final Map<Long, Integer> slots = new HashMap<>();
    private final Map<Integer, Long> releaseEvents = new HashMap<>();

    /**
     * A batch as the consumer gets it.
     *
     * @param slot         the slot's index, from 0 in the order slots were first used
     * @param memoryHandle the slot's {@code CUipcMemHandle} (64 bytes, hex) the first time the slot is used, else null
     */
    public record Shared(int slot, String memoryHandle) {
    }

    /** The driver calls sharing needs: a seam so that the protocol is tested without a GPU. */
    interface Ipc {
        byte[] memoryHandle(long devicePointer);

        long openEvent(byte[] handle);

        void synchronize(long event);

        void destroyEvent(long event);
    }

    DeviceBatchSharing(Ipc ipc) {
        this.ipc = ipc;
    }

    /**
     * Sharing on {@code device}, a CUDA device (the one the batches are on).
     *
     * @throws IllegalArgumentException for a device that is not CUDA's (a fake)
     */
    public static DeviceBatchSharing on(GpuDevice device) {
        if (!(device instanceof CudaDevice cuda)) {
            throw new IllegalArgumentException("device: " + device.id() + " (expected: a CUDA device; IPC shares CUDA memory)");
        }
        CudaDriver driver = cuda.driver();
        return new DeviceBatchSharing(new Ipc() {
            @Override
            public byte[] memoryHandle(long devicePointer) {
                cuda.bind();
                return driver.ipcMemHandle(devicePointer);
            }

            @Override
            public long openEvent(byte[] handle) {
                cuda.bind();
                return driver.ipcOpenEvent(handle);
            }

            @Override
            public void synchronize(long event) {
                cuda.bind();
                driver.call(CudaDriver.HandleCall.EVENT_SYNCHRONIZE, event);
            }

            @Override
            public void destroyEvent(long event) {
                cuda.bind();
                driver.call(CudaDriver.HandleCall.EVENT_DESTROY, event);
            }
        });
    }

    /** {@code batch} as the consumer gets it: its slot, and the slot's memory handle if this is its first batch. */
    public Shared share(DeviceBatch batch) {
        Integer known = slots.get(batch.devicePointer());
        if (known != null) {
            return new Shared(known, null);
        }
        String memory = HexFormat.of().formatHex(ipc.memoryHandle(batch.devicePointer()));
        int slot = slots.size();
        slots.put(batch.devicePointer(), slot);
        return new Shared(slot, memory);
    }

    /** The slot {@code batch} is in (shared before). */
    public int slotOf(DeviceBatch batch) {
        Integer slot = slots.get(batch.devicePointer());
        if (slot == null) {
            throw new IllegalArgumentException("batch " + batch.sequence() + ": never shared (expected: share() first)");
        }
        return slot;
    }

    /**
     * The consumer released slot {@code slot}: waits until the GPU work it ordered before its release event is done.
     *
     * @param eventHandle the consumer's release event for the slot (hex), sent with the slot's first release; null
     *                    after (the event opened then is waited on again) or when the consumer did no GPU work on it
     */
    public void release(int slot, String eventHandle) {
        if (slot < 0 || slot >= slots.size()) {
            throw new IllegalArgumentException("slot: " + slot + " (expected: 0.." + (slots.size() - 1) + ", one shared)");
        }
        if (eventHandle != null && !releaseEvents.containsKey(slot)) {
            byte[] handle = HexFormat.of().parseHex(eventHandle);
            if (handle.length != CudaDriver.IPC_HANDLE_BYTES) {
                throw new IllegalArgumentException("release event of slot " + slot + ": " + handle.length
                        + " bytes (expected: " + CudaDriver.IPC_HANDLE_BYTES + ", a CUipcEventHandle)");
            }
            releaseEvents.put(slot, ipc.openEvent(handle));
        }
        Long event = releaseEvents.get(slot);
        if (event != null) {
            ipc.synchronize(event);
        }
    }

    /** Slots shared so far. */
    public int slots() { return slots.size(); }

    /** Closes the consumer's events opened here (the slots' memory is the loader's). */
    @Override
    public void close() {
        try {
            Closeables.releaseAll(releaseEvents.values(), ipc::destroyEvent);
        } finally {
            releaseEvents.clear();
            slots.clear();
        }
    }
}
