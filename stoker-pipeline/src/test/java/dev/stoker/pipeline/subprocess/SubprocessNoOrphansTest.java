package dev.stoker.pipeline.subprocess;

import dev.stoker.pipeline.subprocess.internal.SharedMemoryFile;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.pipeline.Pipeline;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The child never outlives its parent, close() stops it, and shared memory files do not pile up. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SubprocessNoOrphansTest {

    @Test
    void childIsGoneOnceItsParentIsKilled() throws Exception {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), OrphanParentMain.class.getName());
        Process parent = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(parent.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertThat(line).as("the parent reports its child").startsWith("child ");
            ProcessHandle child = ProcessHandle.of(Long.parseLong(line.substring(6).trim())).orElseThrow();
            assertThat(child.isAlive()).isTrue();
            parent.destroyForcibly();   // SIGKILL: no shutdown hook, no close()
            assertThat(parent.waitFor(10, TimeUnit.SECONDS)).isTrue();
            // It goes on an event (its standard input ends with the parent), not after a time: awaited, with a hang guard.
            ChildJvm.await("the grandchild to exit", () -> exited(child), Duration.ofSeconds(40));
        } finally {
            parent.destroyForcibly();
        }
    }

    /**
     * Whether the process has exited: gone, or a zombie (its parent is dead, so it waits for init to reap it,
     * which init in a container may do late; ProcessHandle counts a zombie as alive).
     */
    private static boolean exited(ProcessHandle process) {
        if (!process.isAlive()) {
            return true;
        }
        try {
            String stat = Files.readString(Path.of("/proc/" + process.pid() + "/stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
        } catch (IOException e) {
            return true;
        }
    }

    @Test
    void closeStopsTheChildAndDeletesItsSharedMemory() {
        List<Long> pids = new CopyOnWriteArrayList<>();
        Pipeline<String> p = Pipeline.from(IntStream.range(0, 1_000_000).mapToObj(i -> "w" + i).toList())
                .map("upper", TestStages.Upper.class, "")
                .isolate(ChildJvm.options(ItemCodecs.STRING, ItemCodecs.STRING).onChildStart(pids::add))
                .build();
        assertThat(p.iterator().next()).isEqualTo("W0");
        assertThat(ChildJvm.ownSharedMemoryFiles()).hasSize(1);
        ProcessHandle child = ProcessHandle.of(pids.getFirst()).orElseThrow();
        p.close();
        assertThat(child.isAlive()).isFalse();
        assertThat(p.liveThreads()).isEmpty();
        assertThat(ChildJvm.ownSharedMemoryFiles()).isEmpty();
    }

    @Test
    void staleSharedMemoryFilesOfDeadProcessesAreDeletedAtStart() throws IOException, InterruptedException {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path stale = SharedMemoryFile.directory().resolve("stoker-" + gone.pid() + "-1.shm");
        Files.write(stale, new byte[16]);
        Path live = SharedMemoryFile.directory().resolve("stoker-" + ProcessHandle.current().pid() + "-999999.shm");
        Files.write(live, new byte[16]);
        try (SharedMemoryFile file = SharedMemoryFile.create(4096)) {
            assertThat(stale).doesNotExist();
            assertThat(live).as("a live process's file is kept").exists();
            assertThat(file.path()).exists();
        } finally {
            Files.deleteIfExists(live);
        }
    }
}
