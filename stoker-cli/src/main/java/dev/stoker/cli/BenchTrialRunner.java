package dev.stoker.cli;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.pipeline.PipelineStats;
import dev.stoker.tune.internal.TrialMetrics;
import dev.stoker.tune.internal.TrialRunner;
import dev.stoker.tune.internal.TrialSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a tuner trial as {@code stoker bench} in a child JVM (this one's java and classpath), isolated: a
 * crash is a failed trial, a hang is killed at the timeout. The child writes its results as JSON; its CPU
 * time is read from {@code /proc} while it runs. Files per trial in {@code dir}: {@code trial-N.json} (the
 * config), {@code trial-N.bench.json} (bench's results), {@code trial-N.log} (its output).
 */
final class BenchTrialRunner implements TrialRunner {
    private static final ObjectMapper JSON = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final Path dataset;
    private final long batches;
    private final List<String> extraArgs;
    private final Path dir;

    BenchTrialRunner(Path dataset, long batches, List<String> extraArgs, Path dir) {
        this.dataset = dataset;
        this.batches = batches;
        this.extraArgs = List.copyOf(extraArgs);
        this.dir = dir;
    }

    /** The child's command line for {@code trial}; {@code more} after the rest (a plain trial: {@code --no-reference}). */
    List<String> command(TrialSpec trial, Path config, Path json, List<String> more) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(StokerCommand.class.getName());
        cmd.add("bench");
        cmd.add(dataset.toString());
        cmd.add("--config");
        cmd.add(config.toString());
        cmd.add("--batches");
        cmd.add(Long.toString(batches));
        cmd.add("--json");
        cmd.add(json.toString());
        cmd.addAll(extraArgs);
        cmd.addAll(more);
        return cmd;
    }

    @Override
    public TrialMetrics run(TrialSpec trial) throws Exception {
        return run(trial, List.of("--no-reference")).metrics;   // a trial times the pipeline alone
    }

    record Outcome(TrialMetrics metrics, JsonNode bench) { }

    /** Where {@code trial}'s bench results are (its {@code failures} among them). */
    Path benchJson(int trial) { return dir.resolve("trial-" + trial + ".bench.json"); }

    /** Where {@code trial}'s output is. */
    Path log(int trial) { return dir.resolve("trial-" + trial + ".log"); }

    Outcome run(TrialSpec trial, List<String> more) throws Exception {
        Files.createDirectories(dir);
        String name = "trial-" + trial.trial();
        Path config = dir.resolve(name + ".json");
        Path json = benchJson(trial.trial());
        Path log = log(trial.trial());
        Files.deleteIfExists(json);
        Files.writeString(config, trial.options().toJson());
        ProcessBuilder pb = new ProcessBuilder(command(trial, config, json, more)).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        // No orphan when the tuner is stopped: the hook is in place before the child starts (a hook added while the
        // JVM stops is refused, and a child started then would outlive it), and kills whichever child it finds.
        AtomicReference<Process> running = new AtomicReference<>();
        AtomicBoolean stopping = new AtomicBoolean();
        ShutdownHook reaper = null;
        try {
            reaper = ShutdownHook.add("stoker-tune-reaper", () -> {
                stopping.set(true);
                Process p = running.get();
                if (p != null) {
                    p.destroyForcibly();
                }
            });
        } catch (IllegalStateException shuttingDown) {
            awaitHalt();
        }
        long start = System.nanoTime();
        long machineAtStart = machineBusyTicks();
        Process child;
        try {
            child = pb.start();
        } catch (IOException | RuntimeException e) {
            reaper.close();
            throw e;
        }
        running.set(child);
        if (stopping.get()) {   // the hook ran between the two: it found no child to kill
            child.destroyForcibly();
        }
        long cpuTicks = 0;
        try {
            long deadline = start + TimeUnit.MILLISECONDS.toNanos(trial.timeoutMillis());
            while (!child.waitFor(200, TimeUnit.MILLISECONDS)) {
                cpuTicks = Math.max(cpuTicks, cpuTicks(child.pid()));
                if (System.nanoTime() > deadline) {
                    child.destroy();
                    if (!child.waitFor(3, TimeUnit.SECONDS)) {
                        child.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                    }
                    throw new TimeoutException("trial " + trial.trial() + " ran past " + trial.timeoutMillis() / 1000
                            + " s and was killed (its output: " + log + ")");
                }
            }
        } catch (InterruptedException e) {
            child.destroyForcibly();
            throw e;
        } finally {
            reaper.close();
        }
        double wall = (System.nanoTime() - start) / 1e9;
        long machineAtEnd = machineBusyTicks();
        if (child.exitValue() != 0 && stoppedWithTheTuner(child.exitValue(), stopping)) {
            awaitHalt();
        }
        if (child.exitValue() != 0 || !Files.exists(json)) {
            throw new IOException("trial " + trial.trial() + " exited with " + child.exitValue() + ": " + lastLines(log, 3)
                    + " (" + log + ")");
        }
        JsonNode bench = JSON.readTree(json.toFile());
        double sps = bench.path("samples_per_second").asDouble();
        PipelineStats stats = JSON.treeToValue(bench.get("stats"), PipelineStats.class);
        PipelineConfig effective = bench.hasNonNull("config") ? PipelineConfig.fromJson(bench.get("config").toString()) : null;
        // /proc ticks are 1/100 s; the last reading is a little before the child exited.
        double cores = cpuTicks > 0 ? cpuTicks / 100.0 / wall : Double.NaN;
        // What the rest of the machine ran meanwhile (every CPU's busy time, less the child's): a trial that
        // shared the machine says so in its metrics. This process's own polling is in it too; it is small.
        double others = machineAtStart > 0 && machineAtEnd > 0 && cpuTicks > 0
                ? Math.max(0, (machineAtEnd - machineAtStart - cpuTicks) / 100.0 / wall) : Double.NaN;
        return new Outcome(TrialMetrics.of(sps, stats, cores, others, effective), bench);
    }

    /**
     * Whether a child that ended with {@code exit} was stopped with the tuner, rather than failing: the tuner's JVM is
     * stopping (its hook killed the child), or the child ended on SIGINT or SIGTERM (Ctrl-C reaches the whole process
     * group: the child may end before this JVM starts its hooks, so a short wait tells which).
     */
    private static boolean stoppedWithTheTuner(int exit, AtomicBoolean stopping) throws InterruptedException {
        if (stopping.get()) {
            return true;
        }
        if (exit != 128 + 2 && exit != 128 + 15) {
            return false;
        }
        for (int i = 0; i < 20 && !stopping.get(); i++) {
            Thread.sleep(100);
        }
        return stopping.get();
    }

    /**
     * Waits for the JVM to halt: it is stopping, and a trial that ended with it is no result (recorded, it would be a
     * failed trial in the journal that a continued search reads) and no next trial may start.
     */
    private static void awaitHalt() throws InterruptedException {
        new java.util.concurrent.CountDownLatch(1).await();
    }

    /** utime + stime of {@code pid} in clock ticks, from /proc (0 when unreadable). */
    private static long cpuTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]);   // fields 14 and 15 of stat
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** Busy time of all CPUs in clock ticks, from the first line of /proc/stat (0 when unreadable). */
    private static long machineBusyTicks() {
        try (java.io.BufferedReader r = Files.newBufferedReader(Path.of("/proc/stat"))) {
            String[] f = r.readLine().trim().split("\\s+");   // cpu user nice system idle iowait irq softirq steal ...
            long busy = 0;
            for (int i = 1; i < f.length && i <= 7; i++) {   // user nice system (idle iowait) irq softirq
                if (i != 4 && i != 5) {
                    busy += Long.parseLong(f[i]);
                }
            }
            return busy;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static String lastLines(Path log, int n) {
        try {
            List<String> lines = Files.readAllLines(log).stream().filter(l -> !l.isBlank()).toList();
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - n), lines.size()));
        } catch (IOException e) {
            return "(no output)";
        }
    }
}
