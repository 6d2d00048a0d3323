package dev.stoker.gpu;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Plain off-heap host memory (not pinned): one shared arena per buffer, so each can be freed alone. */
final class OffHeapHostAllocator implements HostAllocator {
    private static final long PAGE_BYTES = 4096;
    private final Map<Long, Arena> arenas = new ConcurrentHashMap<>();

    @Override
    public MemorySegment allocate(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("bytes: " + bytes + " (expected: 1+)");
        }
        Arena arena = Arena.ofShared();
        MemorySegment buffer = arena.allocate(bytes, PAGE_BYTES);
        arenas.put(buffer.address(), arena);
        return buffer;
    }

    @Override
    public void free(MemorySegment buffer) {
        Arena arena = arenas.remove(buffer.address());
        if (arena == null) {
            throw new IllegalArgumentException("buffer at 0x" + Long.toHexString(buffer.address())
                    + " (expected: a live buffer of this allocator)");
        }
        arena.close();
    }

    @Override
    public boolean pinned() { return false; }

    /** Buffers allocated and not yet freed. */
    public int liveBuffers() { return arenas.size(); }
}
