// What a batch costs to become DJL arrays (docs/benchmarks.md, "Training in Java (DJL)"). Run from the repository
// root after 'mvn -pl stoker-djl,stoker-cli -am package -DskipTests':
//
//   OMP_WAIT_POLICY=PASSIVE java --enable-native-access=ALL-UNNAMED \
//        -cp 'stoker-djl/target/stoker-djl.jar:stoker-djl/target/lib/*:stoker-cli/target/lib/*' \
//        bench/DjlConversion.java [N T H W] [ROUNDS]              default: 8 16 112 112, 300 rounds
//
// A batch of N clips of T x H x W x 3 uint8 (NTHWC, as the loader writes it) in off-heap memory, filled with random
// bytes. Per round, in this order, each timed alone: 'wrap' (ClipArrays.view: the pixel array over the batch's
// memory, zero-copy, plus the int64 labels), 'normalise' (uint8 -> float32, mean/std, to NCTHW: the one pass that
// writes new memory, which the model needs anyway), and for comparison 'copy-in' (the same bytes from a heap
// array, the one copy DJL makes for memory that is not a direct buffer). Prints p50 and p99 per operation and
// the batch's bytes; a check reads one byte back through the wrapped array.
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import dev.stoker.djl.internal.BatchArrays;
import dev.stoker.djl.internal.ClipArrays;
import dev.stoker.djl.internal.TorchRuntime;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.tune.TensorBatch;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

public class DjlConversion {
    public static void main(String[] args) {
        long n = args.length >= 4 ? Long.parseLong(args[0]) : 8;
        long t = args.length >= 4 ? Long.parseLong(args[1]) : 16;
        long h = args.length >= 4 ? Long.parseLong(args[2]) : 112;
        long w = args.length >= 4 ? Long.parseLong(args[3]) : 112;
        int rounds = args.length == 1 || args.length == 5 ? Integer.parseInt(args[args.length - 1]) : 300;
        long[] shape = {n, t, h, w, 3};
        long bytes = n * t * h * w * 3;
        byte[] heap = new byte[(int) bytes];
        new SplittableRandom(1).nextBytes(heap);
        int[] labels = new int[(int) n];
        try (Arena arena = Arena.ofShared(); NDManager root = TorchRuntime.engine().newBaseManager()) {
            MemorySegment data = arena.allocate(bytes, 64);
            data.copyFrom(MemorySegment.ofArray(heap));
            TensorBatch batch = new TensorBatch(data, shape, labels);
            long[] wrap = new long[rounds];
            long[] normalise = new long[rounds];
            long[] copyIn = new long[rounds];
            for (int r = -rounds / 5; r < rounds; r++) {           // the first fifth warms up, unrecorded
                long t0 = System.nanoTime();
                BatchArrays arrays = ClipArrays.view(batch, BatchLayout.NTHWC, root);
                long t1 = System.nanoTime();
                NDArray input = arrays.input();
                long t2 = System.nanoTime();
                if (arrays.pixels().get(n - 1, t - 1, h - 1, w - 1, 2).toByteArray()[0] != heap[heap.length - 1]
                        || input.getDataType() != DataType.FLOAT32) {
                    throw new AssertionError("the wrapped array does not read the batch's bytes");
                }
                arrays.close();
                long t3 = System.nanoTime();
                try (NDManager m = root.newSubManager()) {
                    m.create(ByteBuffer.wrap(heap), new Shape(shape), DataType.UINT8);
                }
                long t4 = System.nanoTime();
                if (r >= 0) {
                    wrap[r] = t1 - t0;
                    normalise[r] = t2 - t1;
                    copyIn[r] = t4 - t3;
                }
            }
            System.out.printf(Locale.ROOT, "batch %s uint8, %.2f MB; libtorch %s, %s intra-op threads, OMP_WAIT_POLICY %s; %d rounds%n",
                    Arrays.toString(shape), bytes / 1e6, TorchRuntime.engine().getVersion(),
                    System.getProperty("ai.djl.pytorch.num_threads"), TorchRuntime.ompWaitPolicy(), rounds);
            print("wrap (zero-copy, + labels)", wrap, bytes);
            print("normalise to float NCTHW", normalise, bytes);
            print("copy-in from a heap array", copyIn, bytes);
        }
    }

    private static void print(String what, long[] nanos, long bytes) {
        long[] s = nanos.clone();
        Arrays.sort(s);
        long p50 = s[s.length / 2];
        long p99 = s[Math.min(s.length - 1, (int) Math.ceil(0.99 * s.length) - 1)];
        System.out.printf(Locale.ROOT, "  %-28s p50 %9.1f us  p99 %9.1f us  (%.2f GB/s at p50)%n", what, p50 / 1e3, p99 / 1e3,
                bytes / (double) p50);
    }
}
