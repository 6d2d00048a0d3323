// Consumer step jitter with the loader running, in-process vs split into a child JVM (docs/benchmarks.md,
// "Process isolation"). Run from the repository root after 'mvn -pl stoker-cli -am package -DskipTests':
//
//   java --enable-native-access=ALL-UNNAMED -cp 'stoker-cli/target/stoker-cli.jar:stoker-cli/target/lib/*' \
//        bench/StepJitter.java DATASET STEP_MS STEPS MODE...        MODE: in | a stage to split after, e.g. in collate in collate
//
// Each mode opens a VideoLoader (defaults: 16x112x112 clips, batches of 8), lets it warm up for 10 steps, then
// takes STEPS batches, each followed by a synthetic step: a fixed amount of CPU work (xorshift rounds, calibrated
// once per JVM to take STEP_MS on an idle core) that first touches one byte per page of the batch. It prints, per
// mode: the step's own duration (p50, p99, max: the jitter the loader inflicts on training: GC pauses, CPU taken),
// the iteration time with the wait for the batch (p50, p99) and samples/s. All modes run in this one JVM with the
// same calibrated work, so alternating them (in collate in collate ...) compares like with like.
import dev.stoker.bench.internal.CpuBurn;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.video.loader.VideoLoader;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Locale;

public class StepJitter {
    static volatile long sink;

    static double percentile(double[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    public static void main(String[] args) throws Exception {
        Dataset data = Dataset.open(Path.of(args[0]));
        double stepMillis = Double.parseDouble(args[1]);
        int steps = Integer.parseInt(args[2]);
        CpuBurn work = CpuBurn.calibrated(); // the same xorshift rounds as stoker demo's synthetic steps
        long stepMicros = Math.round(stepMillis * 1000);
        System.out.printf(Locale.ROOT, "%d videos, step %.0f ms, %d steps per mode%n", data.size(), stepMillis, steps);
        for (int m = 3; m < args.length; m++) {
            String mode = args[m];
            LoaderOptions options = LoaderOptions.builder().splitAfter(mode.equals("in") ? null : dev.stoker.loader.VideoStage.of(mode)).build();
            double[] step = new double[steps];
            double[] iteration = new double[steps];
            long samples = 0;
            long measuredStart = 0;
            try (VideoLoader loader = VideoLoader.open(data, options)) {
                Iterator<ClipBatch> it = loader.iterator();
                for (int i = -10; i < steps; i++) {
                    long t0 = System.nanoTime();
                    if (i == 0) {
                        measuredStart = t0;
                    }
                    try (ClipBatch batch = it.next()) {
                        long t1 = System.nanoTime();
                        long checksum = 0;
                        for (long off = 0; off < batch.data().byteSize(); off += 4096) {
                            checksum += batch.data().get(ValueLayout.JAVA_BYTE, off);
                        }
                        sink += work.burn(stepMicros, checksum);
                        long t2 = System.nanoTime();
                        if (i >= 0) {
                            step[i] = (t2 - t1) / 1e6;
                            iteration[i] = (t2 - t0) / 1e6;
                            samples += batch.clipCount();
                        }
                    }
                }
            }
            double seconds = (System.nanoTime() - measuredStart) / 1e9;
            Arrays.sort(step);
            Arrays.sort(iteration);
            System.out.printf(Locale.ROOT, "%-6s step p50 %6.1f p99 %6.1f max %6.1f ms | iteration p50 %6.1f p99 %6.1f ms | %6.1f samples/s%n",
                    mode, percentile(step, 0.5), percentile(step, 0.99), step[steps - 1], percentile(iteration, 0.5),
                    percentile(iteration, 0.99), samples / seconds);
        }
    }
}
