package dev.stoker.pipeline;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The native memory this process holds on purpose, by kind: every pool and arena that allocates outside the heap
 * reports here what it allocates and what it frees, so that the dashboard, {@code --json} and the bridge's
 * {@code stats()} can say where the off-heap memory is (the JVM's buffer-pool beans see NIO buffers only, not
 * {@code Arena} allocations). Counters, always on: an allocation or a free is one {@link LongAdder} add, and a pool
 * reports a buffer once, when it creates or frees it, not per use.
 */
public final class MemoryAccount {

    /** What the memory is for. */
    public enum Kind {
        /** The loaders' batch and clip buffers (their pools' off-heap arenas). */
        POOLED_BUFFERS(true),
        /** Files in {@code /dev/shm} this process maps: batch slots shared with Python, rings to a child JVM. */
        SHARED_MEMORY(true),
        /** Page-locked host buffers a GPU copies from. */
        PINNED_HOST(true),
        /** Demuxed packets of the videos open now, in buffers Stoker allocated (not FFmpeg's own). */
        PACKET_BUFFERS(true),
        /** Record payloads fetched from remote shards, until the clips that read them are gone. */
        REMOTE_PAYLOADS(true),
        /** Memory on a GPU (its batch and clip buffers): not part of this process's host memory. */
        DEVICE(false);

        private final boolean host;

        Kind(boolean host) {
            this.host = host;
        }

        /** Whether the memory is this process's host memory (all but {@link #DEVICE}). */
        public boolean host() { return host; }

        /** The kind's name in JSON: {@code pooled_buffers}. */
        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final LongAdder[] BYTES = new LongAdder[Kind.values().length];

    static {
        for (int i = 0; i < BYTES.length; i++) {
            BYTES[i] = new LongAdder();
        }
    }

    private MemoryAccount() {
    }

    /** {@code bytes} of {@code kind} were allocated. */
    public static void allocated(Kind kind, long bytes) {
        BYTES[kind.ordinal()].add(bytes);
    }

    /** {@code bytes} of {@code kind} were freed (as many as were reported allocated). */
    public static void freed(Kind kind, long bytes) {
        BYTES[kind.ordinal()].add(-bytes);
    }

    /** Bytes of {@code kind} held now. */
    public static long bytes(Kind kind) {
        return BYTES[kind.ordinal()].sum();
    }

    /** Bytes of every host kind held now: the off-heap memory this process accounts for. */
    public static long hostBytes() {
        long total = 0;
        for (Kind kind : Kind.values()) {
            if (kind.host()) {
                total += bytes(kind);
            }
        }
        return total;
    }

    /** Every kind's bytes now, by {@link Kind#key()}, in the kinds' order. */
    public static Map<String, Long> byKind() {
        Map<String, Long> now = new LinkedHashMap<>();
        for (Kind kind : Kind.values()) {
            now.put(kind.key(), bytes(kind));
        }
        return now;
    }
}
