package dev.stoker.serve.internal;

import dev.stoker.loader.batch.BatchMemory;
import dev.stoker.pipeline.MemoryAccount;
import dev.stoker.pipeline.internal.PrivateFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Batch buffers in the slots of one shared-memory file ({@code /dev/shm}), so that another process that maps
 * the file once reads each batch where collate wrote it: no copy, no serialization, no allocation per batch.
 * The {@code BatchPool} above keeps reuse and back-pressure; this hands out each of the fixed slots once and
 * says where a buffer lies in the file ({@link #slotOf}), which is all the consumer needs to find it.
 *
 * <p>Every page of the file is written once at creation, through the file channel: on a tmpfs too small for it
 * that fails with an {@code IOException} here, instead of a {@code SIGBUS} the first time collate touches a page
 * the file system cannot back (the way Docker's 64 MB {@code /dev/shm} would otherwise end a run hours in).
 */
public final class SharedBatchMemory implements BatchMemory {
    /** Slots start on page boundaries, so that a consumer's view of one is aligned for any element type. */
    public static final long SLOT_ALIGNMENT = 4096;

    private final Path file;
    private final Arena arena;
    private final MemorySegment mapping;
    private final long slotBytes;
    private final int slots;
    private final AtomicInteger handedOut = new AtomicInteger();
    private final AtomicBoolean freed = new AtomicBoolean();

    private SharedBatchMemory(Path file, Arena arena, MemorySegment mapping, long slotBytes, int slots) {
        this.file = file;
        this.arena = arena;
        this.mapping = mapping;
        this.slotBytes = slotBytes;
        this.slots = slots;
    }

    /** Bytes of a slot holding a batch of {@code batchBytes}: rounded up to {@link #SLOT_ALIGNMENT}. */
    public static long slotBytes(long batchBytes) {
        return (batchBytes + SLOT_ALIGNMENT - 1) / SLOT_ALIGNMENT * SLOT_ALIGNMENT;
    }

    /**
     * Creates {@code file} (it must not exist) with {@code slots} slots for batches of {@code batchBytes}, every
     * page backed, and maps it.
     *
     * @throws IOException if the file exists or the file system cannot hold it
     */
    public static SharedBatchMemory create(Path file, long batchBytes, int slots) throws IOException {
        if (batchBytes <= 0) {
            throw new IllegalArgumentException("batchBytes: " + batchBytes + " (expected: 1+)");
        }
        if (slots < 1) {
            throw new IllegalArgumentException("slots: " + slots + " (expected: 1+)");
        }
        long slotBytes = slotBytes(batchBytes);
        long size = Math.multiplyExact(slotBytes, slots);
        Arena arena = Arena.ofShared();
        try (FileChannel channel = PrivateFiles.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ)) {
            backEveryPage(channel, size);
            MemorySegment mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            MemoryAccount.allocated(MemoryAccount.Kind.SHARED_MEMORY, size);   // every page is backed: all of it
            return new SharedBatchMemory(file, arena, mapping, slotBytes, slots);
        } catch (IOException | RuntimeException e) {
            arena.close();
            Files.deleteIfExists(file);
            throw e;
        }
    }

    private static void backEveryPage(FileChannel channel, long size) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
        for (long at = 0; at < size; ) {
            zeros.clear().limit((int) Math.min(zeros.capacity(), size - at));
            at += channel.write(zeros, at);
        }
    }

    @Override
    public MemorySegment allocate(long bytes, long alignmentBytes) {
        if (bytes > slotBytes) {
            throw new IllegalArgumentException("bytes: " + bytes + " (expected: at most a slot, " + slotBytes + ")");
        }
        if (SLOT_ALIGNMENT % alignmentBytes != 0) {
            throw new IllegalArgumentException("alignmentBytes: " + alignmentBytes + " (expected: a divisor of " + SLOT_ALIGNMENT + ")");
        }
        int slot = handedOut.getAndIncrement();
        if (slot >= slots) {
            handedOut.decrementAndGet();
            throw new IllegalStateException("all " + slots + " slots of " + file + " are in use (expected: a batch pool"
                    + " whose budget is at most the slots)");
        }
        return mapping.asSlice(slot * slotBytes, bytes);
    }

    /** The slot a buffer of this memory (or a slice of one) lies in. */
    public int slotOf(MemorySegment buffer) {
        long offset = buffer.address() - mapping.address();
        if (offset < 0 || offset >= mapping.byteSize()) {
            throw new IllegalArgumentException("buffer at 0x" + Long.toHexString(buffer.address()) + " is not in " + file);
        }
        return (int) (offset / slotBytes);
    }

    /** Unmaps the file and removes it (a consumer's mapping stays valid until it unmaps). Idempotent. */
    @Override
    public void freeAll() {
        if (!freed.compareAndSet(false, true)) {
            return;
        }
        arena.close();
        MemoryAccount.freed(MemoryAccount.Kind.SHARED_MEMORY, mapping.byteSize());
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + file, e);
        }
    }

    public Path file() { return file; }

    public long slotBytes() { return slotBytes; }

    public int slots() { return slots; }

    @Override
    public String toString() {
        return "SharedBatchMemory[" + file + ", " + slots + " slots of " + slotBytes + " bytes]";
    }
}
