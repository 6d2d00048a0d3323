package dev.stoker.jmh;

import dev.stoker.loader.batch.BatchCollator;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.BatchPool;
import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.StageFactory;
import dev.stoker.pipeline.subprocess.ItemCodecs;
import dev.stoker.pipeline.subprocess.SubprocessOptions;
import dev.stoker.pipeline.subprocess.internal.SharedMemoryFile;
import dev.stoker.pipeline.subprocess.internal.SharedRing;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Process-isolation transport throughput for 1 MiB items against memcpy bandwidth, in one JMH run
 * ({@code bench/jmh TransportBenchmark}). Every benchmark moves one 1 MiB item per operation, so the ratio of
 * two scores (ops/s) is the ratio of their bandwidths; GB/s = ops/s × 1.048576 / 1000.
 *
 * <ul>
 *   <li>{@code memcpy} ({@code dest = same}): {@code MemorySegment.copy} of 1 MiB between two fixed native
 *       segments, cache-resident: the ceiling. ({@code dest = ring}): into successive 1 MiB slots of a
 *       ring-sized segment, the working set the ring has: the fair baseline.</li>
 *   <li>{@code ringOneWay}: a producer thread writes items into a {@link SharedRing} on a mapped {@code /dev/shm}
 *       file, the benchmark thread reads them, both waiting with the transport's idle strategy. What the reader
 *       decodes into ({@code decodeInto}): {@code pooled-batch}, the realistic path of a loader split after
 *       collate: a 1 MiB batch (4 clips with their {@link ClipInfo}s) copied out of the ring into a batch of a
 *       {@link BatchPool}, as {@code CollatedBatchCodec} does (acquire, one copy, metadata; the
 *       consumer holds the last 4 batches, as a sink of 4 would, and closes the oldest); {@code new-array}, a
 *       fresh {@code byte[]} per item ({@code ItemCodecs.BYTES}: allocation and zeroing); {@code reused-array},
 *       one {@code byte[]} for all (the copy alone).</li>
 *   <li>{@code pipelineRoundTrip}: {@code Pipeline.from(1 MiB byte[]).map(identity).isolate(child JVM)}: each item
 *       crosses to the child and back (four copies), through both engines, as a user sees it.</li>
 * </ul>
 * Target (docs/benchmarks.md, "Process isolation"): {@code ringOneWay} with {@code pooled-batch} at 0.5 × memcpy
 * or more.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class TransportBenchmark {
    static final int ITEM_BYTES = 1 << 20;
    /** 4 clips of 16 frames of 64 × 64 × 4: exactly 1 MiB of pixels. */
    static final BatchShape SHAPE = new BatchShape(4, 16, 64, 64, 4, BatchLayout.NTHWC);
    /** Batches the consumer holds at once in the pooled path (a sink of 4). */
    static final int HELD = 4;

    /** Copies between native segments. */
    @State(Scope.Thread)
    public static class Memcpy {
        @Param({"same", "ring"})
        String dest;
        @Param({"32"})
        int ringMiB;

        Arena arena;
        MemorySegment from;
        MemorySegment to;
        long slots;
        long next;

        @Setup(Level.Trial)
        public void setUp() {
            arena = Arena.ofShared();
            long toBytes = dest.equals("same") ? ITEM_BYTES : (long) ringMiB << 20;
            from = arena.allocate(ITEM_BYTES, 64).fill((byte) 1);
            to = arena.allocate(toBytes, 64).fill((byte) 0);
            slots = toBytes / ITEM_BYTES;
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            arena.close();
        }
    }

    @Benchmark
    public MemorySegment memcpy(Memcpy s) {
        long slot = s.next++ % s.slots;
        MemorySegment.copy(s.from, 0, s.to, slot * ITEM_BYTES, ITEM_BYTES);
        return s.to;
    }

    /** A ring on a mapped /dev/shm file, a producer thread filling it, and what the reader decodes into. */
    @State(Scope.Thread)
    public static class Ring {
        @Param({"pooled-batch", "new-array", "reused-array"})
        String decodeInto;
        @Param({"32"})
        int ringMiB;

        SharedMemoryFile file;
        SharedRing ring;
        Thread producer;
        volatile boolean stop;
        final SharedRing.Record record = new SharedRing.Record();
        BatchPool childPool;
        BatchPool pool;
        final BatchCodec codec = new BatchCodec();
        final ArrayDeque<ClipBatch> held = new ArrayDeque<>();
        byte[] reused;

        @Setup(Level.Trial)
        public void setUp() throws InterruptedException {
            long ringBytes = (long) ringMiB << 20;
            file = SharedMemoryFile.create(SharedRing.regionBytes(ringBytes));
            ring = new SharedRing(file.segment());
            boolean pooled = decodeInto.equals("pooled-batch");
            Runnable write;
            if (pooled) {
                childPool = new BatchPool(SHAPE, SHAPE.batchBytes());
                pool = new BatchPool(SHAPE, (HELD + 1) * SHAPE.batchBytes());
                ClipBatch item = childPool.acquire();
                MemorySegment clip = Arena.ofAuto().allocate(SHAPE.clipBytes()).fill((byte) 7);
                for (int i = 0; i < SHAPE.clipsPerBatch(); i++) {
                    BatchCollator.put(item, i, clip, new ClipInfo(Path.of("/data/kinetics/train/class " + i + "/video.mp4"),
                            i, new double[] {0.0, 0.066, 0.133, 0.2, 0.266, 0.333, 0.4, 0.466, 0.533, 0.6, 0.666, 0.733,
                                    0.8, 0.866, 0.933, 1.0}, 40));
                }
                long bytes = codec.encodedBytes(item);
                write = () -> {
                    MemorySegment target = claim(bytes);
                    if (target != null) {
                        codec.encode(item, target);
                        ring.commit();
                    }
                };
            } else {
                byte[] item = new byte[ITEM_BYTES];
                Arrays.fill(item, (byte) 7);
                reused = new byte[ITEM_BYTES];
                write = () -> {
                    MemorySegment target = claim(ITEM_BYTES);
                    if (target != null) {
                        ItemCodecs.BYTES.encode(item, target);
                        ring.commit();
                    }
                };
            }
            producer = Thread.ofPlatform().name("ring-producer").daemon(true).start(() -> {
                while (!stop) {
                    write.run();
                }
            });
        }

        /** Room for a record, waiting as the transport does; null once stopping. */
        private MemorySegment claim(long bytes) {
            int idle = 0;
            MemorySegment target;
            while ((target = ring.tryClaim(1, 0, 0, bytes)) == null) {
                if (stop) {
                    return null;
                }
                idle = idle(idle);
            }
            return target;
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException {
            stop = true;
            producer.join();
            held.forEach(ClipBatch::close);
            held.clear();
            if (pool != null) {
                if (pool.buffersInUse() != 0) {
                    throw new AssertionError("pooled batches not returned: " + pool.buffersInUse());
                }
                pool.close();
                childPool.close();
            }
            file.close();
        }
    }

    @Benchmark
    public long ringOneWay(Ring r) {
        int idle = 0;
        while (!r.ring.poll(r.record)) {
            idle = idle(idle);
        }
        long check;
        switch (r.decodeInto) {
            case "pooled-batch" -> {
                ClipBatch batch = r.codec.decode(r.record.payload, r.pool);
                check = batch.labels()[3] == 3 ? batch.data().get(ValueLayout.JAVA_BYTE, ITEM_BYTES - 1) : -1;
                r.held.addLast(batch);
                if (r.held.size() > HELD) {
                    r.held.pollFirst().close();
                }
            }
            case "new-array" -> {
                byte[] b = ItemCodecs.BYTES.decode(r.record.payload);
                check = b[ITEM_BYTES - 1];
            }
            default -> {
                MemorySegment.copy(r.record.payload, ValueLayout.JAVA_BYTE, 0, r.reused, 0, ITEM_BYTES);
                check = r.reused[ITEM_BYTES - 1];
            }
        }
        r.ring.release();
        if (check != 7) {
            throw new AssertionError("corrupt item: " + check);
        }
        return check;
    }

    /** The transport's own idle strategy (as its {@code Backoff}): spin, yield, then park up to 1 ms; returns the next count. */
    static int idle(int idles) {
        if (idles < 200) {
            Thread.onSpinWait();
        } else if (idles < 220) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(Math.min(1_000L << Math.min(idles - 220, 10), 1_000_000L));
        }
        return idles + 1;
    }

    /**
     * A batch as {@code CollatedBatchCodec} sends it, less the loader's own fields: the clip count,
     * each clip's path, label, frames decoded and frame times, then the filled clips' pixels; decoded by
     * acquiring a batch of the receiving pool and filling it with {@link BatchCollator#putAll}.
     */
    static final class BatchCodec {
        private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
        private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;

        long encodedBytes(ClipBatch batch) {
            long bytes = 4;
            for (ClipInfo c : batch.clips()) {
                bytes += 4 + c.path().toString().getBytes(StandardCharsets.UTF_8).length + 12
                        + 8L * c.frameTimestampsSeconds().length;
            }
            return bytes + batch.data().byteSize();
        }

        void encode(ClipBatch batch, MemorySegment target) {
            List<ClipInfo> clips = batch.clips();
            target.set(INT, 0, clips.size());
            long at = 4;
            for (ClipInfo c : clips) {
                byte[] path = c.path().toString().getBytes(StandardCharsets.UTF_8);
                target.set(INT, at, path.length);
                MemorySegment.copy(path, 0, target, ValueLayout.JAVA_BYTE, at + 4, path.length);
                at += 4 + path.length;
                double[] times = c.frameTimestampsSeconds();
                target.set(INT, at, c.label());
                target.set(INT, at + 4, c.framesDecoded());
                target.set(INT, at + 8, times.length);
                MemorySegment.copy(times, 0, target, DOUBLE, at + 12, times.length);
                at += 12 + 8L * times.length;
            }
            MemorySegment.copy(batch.data(), 0, target, at, batch.data().byteSize());
        }

        ClipBatch decode(MemorySegment source, BatchPool pool) {
            int n = source.get(INT, 0);
            List<ClipInfo> clips = new ArrayList<>(n);
            long at = 4;
            for (int i = 0; i < n; i++) {
                int pathBytes = source.get(INT, at);
                byte[] path = new byte[pathBytes];
                MemorySegment.copy(source, ValueLayout.JAVA_BYTE, at + 4, path, 0, pathBytes);
                at += 4 + pathBytes;
                int label = source.get(INT, at);
                int framesDecoded = source.get(INT, at + 4);
                double[] times = new double[source.get(INT, at + 8)];
                MemorySegment.copy(source, DOUBLE, at + 12, times, 0, times.length);
                at += 12 + 8L * times.length;
                clips.add(new ClipInfo(Path.of(new String(path, StandardCharsets.UTF_8)), label, times, framesDecoded));
            }
            ClipBatch batch;
            try {
                batch = pool.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            BatchCollator.putAll(batch, source.asSlice(at, n * SHAPE.clipBytes()), clips);
            return batch;
        }
    }

    /** The identity stage the child runs. */
    public static final class Same implements StageFactory<byte[], byte[]> {
        @Override
        public Function<byte[], byte[]> create(String config) {
            return b -> b;
        }
    }

    /** A pipeline whose one stage runs in a child JVM, fed 1 MiB arrays without end. */
    @State(Scope.Thread)
    public static class RoundTrip {
        @Param({"32"})
        int ringMiB;

        Pipeline<byte[]> pipeline;
        Iterator<byte[]> results;

        @Setup(Level.Trial)
        public void setUp() {
            byte[] item = new byte[ITEM_BYTES];
            Iterator<byte[]> endless = new Iterator<>() {
                @Override public boolean hasNext() { return true; }
                @Override public byte[] next() { return item; }
            };
            pipeline = Pipeline.from(endless)
                    .map("same", Same.class, "")
                    .isolate(SubprocessOptions.codecs(ItemCodecs.BYTES, ItemCodecs.BYTES)
                            .ringBytes((long) ringMiB << 20).maxHeap("512m"))
                    .build();
            results = pipeline.iterator();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pipeline.close();
        }
    }

    @Benchmark
    public byte[] pipelineRoundTrip(RoundTrip t) {
        return t.results.next();
    }

}
