package dev.stoker.jmh;

import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.StageFactory;
import dev.stoker.pipeline.subprocess.ItemCodec;
import dev.stoker.pipeline.subprocess.ItemCodecs;
import dev.stoker.pipeline.subprocess.SharedMemoryFile;
import dev.stoker.pipeline.subprocess.SharedRing;
import dev.stoker.pipeline.subprocess.SubprocessOptions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Locale;
import java.util.function.Function;

/**
 * Process-isolation transport throughput for 1 MiB items, against memcpy bandwidth in the same run. A
 * main, not JMH: one of the three figures needs a child JVM, and all three are steady-state streams.
 *
 * <ol>
 *   <li><b>memcpy</b>: {@code MemorySegment.copy} of 1 MiB between two native segments: the ceiling.</li>
 *   <li><b>ring</b>: a producer thread encodes {@code byte[]} items into a {@link SharedRing} on a mapped
 *       {@code /dev/shm} file, a consumer thread decodes each into a new {@code byte[]}: the transport one
 *       way (two copies and an allocation per item, the producer and consumer in parallel).</li>
 *   <li><b>pipeline round trip</b>: {@code Pipeline.from(items).map(identity).isolate(child JVM)}: each item
 *       crosses to the child and back (four copies), through the child's engine, as a user sees it.</li>
 * </ol>
 * Each figure is the median of {@code rounds} timed rounds of {@code seconds} each, after one warm-up round.
 * Run: {@code java -cp 'stoker-jmh/target/stoker-jmh-*.jar:stoker-jmh/target/lib/*' dev.stoker.jmh.TransportBenchmark [seconds] [rounds]}.
 */
public final class TransportBenchmark {
    private static final int ITEM_BYTES = 1 << 20;
    private static long ringBytes = 32L << 20;

    private TransportBenchmark() { }

    /** The identity stage the child runs. */
    public static final class Same implements StageFactory<byte[], byte[]> {
        @Override
        public Function<byte[], byte[]> create(String config) {
            return b -> b;
        }
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        long roundNanos = (long) (seconds * 1e9);
        if (args.length > 2) {
            ringBytes = Long.parseLong(args[2]) << 20;
        }
        System.out.printf(Locale.ROOT, "1 MiB items, median of %d rounds of %.1f s (after 1 warm-up round)%n", rounds, seconds);
        System.out.printf(Locale.ROOT, "ring %d MiB each way%n", ringBytes >> 20);
        double memcpy = median(rounds, () -> memcpy(roundNanos, ITEM_BYTES));
        System.out.printf(Locale.ROOT, "memcpy 1 MiB, same buffers       %8.2f GB/s%n", memcpy);
        double memcpyRing = median(rounds, () -> memcpy(roundNanos, ringBytes));
        System.out.printf(Locale.ROOT, "memcpy 1 MiB, dest ring-sized    %8.2f GB/s%n", memcpyRing);
        double ringReused = median(rounds, () -> ring(roundNanos, false));
        System.out.printf(Locale.ROOT, "ring, one way, decode into reused %8.2f GB/s  (%.2f x memcpy)%n", ringReused, ringReused / memcpy);
        double ring = median(rounds, () -> ring(roundNanos, true));
        System.out.printf(Locale.ROOT, "ring, one way, thread to thread  %8.2f GB/s  (%.2f x memcpy)%n", ring, ring / memcpy);
        double roundTrip = median(rounds, () -> roundTrip(roundNanos));
        System.out.printf(Locale.ROOT, "pipeline round trip, child JVM   %8.2f GB/s  (%.2f x memcpy; %.0f items/s)%n",
                roundTrip, roundTrip / memcpy, roundTrip * 1e9 / ITEM_BYTES);
    }

    interface Round {
        double gigabytesPerSecond() throws Exception;
    }

    private static double median(int rounds, Round round) throws Exception {
        round.gigabytesPerSecond();
        double[] figures = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            figures[i] = round.gigabytesPerSecond();
        }
        Arrays.sort(figures);
        return figures[rounds / 2];
    }

    /** Copies 1 MiB again and again from one buffer into successive 1 MiB slots of a {@code destBytes} buffer. */
    private static double memcpy(long roundNanos, long destBytes) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment from = arena.allocate(ITEM_BYTES, 64).fill((byte) 1);
            MemorySegment to = arena.allocate(destBytes, 64).fill((byte) 0);
            long slots = destBytes / ITEM_BYTES;
            long copies = 0;
            long start = System.nanoTime();
            long end;
            do {
                for (int i = 0; i < 16; i++) {
                    MemorySegment.copy(from, 0, to, ((copies + i) % slots) * ITEM_BYTES, ITEM_BYTES);
                }
                copies += 16;
                end = System.nanoTime();
            } while (end - start < roundNanos);
            return copies * (double) ITEM_BYTES / (end - start);
        }
    }

    private static double ring(long roundNanos, boolean allocate) throws InterruptedException {
        byte[] reused = new byte[ITEM_BYTES];
        ItemCodec<byte[]> codec = ItemCodecs.BYTES;
        byte[] item = new byte[ITEM_BYTES];
        Arrays.fill(item, (byte) 7);
        try (SharedMemoryFile file = SharedMemoryFile.create(SharedRing.regionBytes(ringBytes))) {
            SharedRing ring = new SharedRing(file.segment());
            long[] received = new long[1];
            long start = System.nanoTime();
            long deadline = start + roundNanos;
            Thread producer = Thread.ofPlatform().start(() -> {
                while (System.nanoTime() < deadline) {
                    MemorySegment target;
                    int idle = 0;
                    while ((target = ring.tryClaim(1, 0, 0, ITEM_BYTES)) == null) {
                        idle = idle(idle);
                    }
                    codec.encode(item, target);
                    ring.commit();
                }
                int idle = 0;
                while (!ring.tryWrite(2, 0, 0)) {
                    idle = idle(idle);
                }
            });
            SharedRing.Record r = new SharedRing.Record();
            long checksum = 0;
            int idle = 0;
            while (true) {
                if (!ring.poll(r)) {
                    idle = idle(idle);
                    continue;
                }
                idle = 0;
                if (r.type == 2) {
                    ring.release();
                    break;
                }
                byte[] decoded;
                if (allocate) {
                    decoded = codec.decode(r.payload);
                } else {
                    MemorySegment.copy(r.payload, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, reused, 0, ITEM_BYTES);
                    decoded = reused;
                }
                ring.release();
                checksum += decoded[ITEM_BYTES - 1];
                received[0]++;
            }
            long end = System.nanoTime();
            producer.join();
            if (checksum != 7L * received[0]) {
                throw new AssertionError("corrupt items");
            }
            return received[0] * (double) ITEM_BYTES / (end - start);
        }
    }

    /** The transport's own idle strategy (as {@code Backoff}): spin, yield, then park up to 1 ms; returns the next count. */
    private static int idle(int idles) {
        if (idles < 200) {
            Thread.onSpinWait();
        } else if (idles < 220) {
            Thread.yield();
        } else {
            java.util.concurrent.locks.LockSupport.parkNanos(Math.min(1_000L << Math.min(idles - 220, 10), 1_000_000L));
        }
        return idles + 1;
    }

    private static double roundTrip(long roundNanos) {
        byte[] item = new byte[ITEM_BYTES];
        Iterator<byte[]> endless = new Iterator<>() {
            @Override public boolean hasNext() { return true; }
            @Override public byte[] next() { return item; }
        };
        try (Pipeline<byte[]> p = Pipeline.from(endless)
                .map("same", Same.class, "")
                .isolate(SubprocessOptions.codecs(ItemCodecs.BYTES, ItemCodecs.BYTES).ringBytes(ringBytes).maxHeap("512m"))
                .build()) {
            Iterator<byte[]> results = p.iterator();
            for (int i = 0; i < 50; i++) {
                results.next();   // the child is up and warm
            }
            long items = 0;
            long start = System.nanoTime();
            long end;
            do {
                results.next();
                items++;
                end = System.nanoTime();
            } while (end - start < roundNanos);
            return items * (double) ITEM_BYTES / (end - start);
        }
    }
}
