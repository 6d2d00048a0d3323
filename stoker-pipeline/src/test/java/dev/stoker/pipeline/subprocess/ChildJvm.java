package dev.stoker.pipeline.subprocess;

import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.subprocess.internal.SharedMemoryFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/** Test helpers: quick-starting child JVM options, killing a child mid-run, polling, and the shared memory files this JVM owns. */
final class ChildJvm {
    private ChildJvm() { }

    /** Flags that make a test child start fast and crash tidily (no core dump, hs_err under /tmp). */
    static final String[] FAST_FLAGS = {"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k",
            "-XX:-CreateCoredumpOnCrash", "-XX:ErrorFile=" + System.getProperty("java.io.tmpdir") + "/stoker-test-hs_err_%p.log"};

    static SubprocessOptions options(ItemCodec<?> in, ItemCodec<?> out) {
        return SubprocessOptions.codecs(in, out).jvmArgs(FAST_FLAGS).maxHeap("256m");
    }

    /**
     * Every item of {@code pipeline}, in delivery order, after SIGKILLing its first child (the first pid in
     * {@code pids}, which the pipeline's {@code onChildStart} fills) once {@code killAfter} items have arrived.
     * Leaves the pipeline open, for the caller's checks of its failures.
     */
    static <T> List<T> drainKillingFirstChild(Pipeline<T> pipeline, List<Long> pids, int killAfter) {
        List<T> got = new ArrayList<>();
        for (T item : pipeline) {
            got.add(item);
            if (got.size() == killAfter) {
                ProcessHandle.of(pids.getFirst()).orElseThrow().destroyForcibly();
            }
        }
        return got;
    }

    /** Deletes the hs_err reports that crashed test children wrote. */
    static void deleteCrashReports(List<Long> pids) {
        for (long pid : pids) {
            try {
                Files.deleteIfExists(Path.of(System.getProperty("java.io.tmpdir"), "stoker-test-hs_err_" + pid + ".log"));
            } catch (IOException ignored) {
                // best effort
            }
        }
    }

    /** This JVM's shared memory files now. */
    static List<Path> ownSharedMemoryFiles() {
        String prefix = "stoker-" + ProcessHandle.current().pid() + "-";
        try (Stream<Path> files = Files.list(SharedMemoryFile.directory())) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void await(String what, BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for: " + what);
            }
        }
    }
}
