package dev.stoker.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The self-contained bundle ({@code bin/make-bundle}) runs where nothing else of the build is: unpacked into an
 * empty folder and started with a bare environment (no JAVA_HOME, PATH of /usr/bin and /bin, whose {@code java}
 * is not a JDK 25 here), it prints its version, makes a dataset with FFmpeg's encoder and benches it, in this
 * JVM and with decoding in a child JVM; the test bundle unpacked over it runs stoker-gpu's tests through JUnit's
 * console launcher, with no Maven (on this machine, without a GPU, the hardware tests skip saying why). One test:
 * making the bundle (jlink, gzip) and its startup cache take a minute.
 */
class BundleTest {
    /** The target; 59.3 MiB with the AWS SDK v2 for s3:// sources (8 MiB of it, with java.xml and java.naming). */
    static final long MAX_BYTES = 60L << 20;
    static final Duration MAKE_TIMEOUT = Duration.ofMinutes(8);
    static final Duration RUN_TIMEOUT = Duration.ofMinutes(3);

    @TempDir
    Path temp;

    @Test
    void theUnpackedBundleRunsWithABareEnvironment() throws Exception {
        Path dist = freshBundleFolder();
        ProcessRun.run(ProcessRun.root(), env -> LauncherJvmEnvironmentTest.VARIABLES.forEach(env::remove),
                MAKE_TIMEOUT, "bin/make-bundle", "--no-build", "--tests", "--out", dist.toString()).succeeded();
        String name = "stoker-" + ProcessRun.version() + "-linux-x86_64";
        Path archive = dist.resolve(name + ".tar.gz");
        assertThat(Files.size(archive)).as("bundle size in bytes").isLessThanOrEqualTo(MAX_BYTES);

        Path unpacked = Files.createDirectories(temp.resolve("somewhere else"));
        bare(unpacked, env -> { }, "/bin/tar", "-xzf", archive.toString());
        Path home = unpacked.resolve(name);
        assertTheRuntimeHoldsOnlyWhatStokerUses(home);

        ProcessRun version = bare(home, env -> { }, "bin/stoker", "--version");
        assertThat(version.out()).contains("stoker " + ProcessRun.version(), "Java 25");
        assertThat(home.resolve("lib/stoker.aot")).as("the startup cache, made by the first run").isRegularFile();

        // Made by the bundle's runtime from its class path: the JVM must accept it (a rejected one is silent).
        ProcessRun logged = bare(home, env -> env.put("STOKER_JAVA_OPTS", "-Xlog:aot=info"), "bin/stoker", "--version");
        assertThat(logged.out()).contains("Opened AOT cache " + home.resolve("lib/stoker.aot"));
        assertThat(logged.out().lines().filter(l -> l.contains("[error") || l.contains("[warning")))
                .as("the startup cache's log").isEmpty();

        Path data = temp.resolve("data");
        bare(home, env -> { }, "bin/stoker", "demo-data", data.toString(), "--classes", "3", "--clips", "4", "--seconds", "3");
        Path json = temp.resolve("bench.json");
        bare(home, env -> { }, "bin/stoker", "bench", data.toString(), "--batches", "3", "--json", json.toString());
        assertThreeBatchesOfTwelveVideos(json);
        // A child JVM gets the bundle's class path from this one and its FFmpeg libraries from the environment.
        bare(home, env -> { }, "bin/stoker", "bench", data.toString(), "--batches", "3", "--split-after", "demux",
                "--no-reference", "--json", json.toString());
        assertThreeBatchesOfTwelveVideos(json);

        bare(unpacked, env -> { }, "/bin/tar", "-xzf", dist.resolve(name + "-tests.tar.gz").toString());
        ProcessRun tests = bare(home, env -> { }, "bin/stoker-tests", "--videos",
                ProcessRun.root().resolve("../shared/videos").toString(),
                "--select-class", "dev.stoker.gpu.GpuHardwareTest", "--select-class", "dev.stoker.gpu.DeviceSpecTest");
        // Without a GPU the hardware tests are aborted by their assumption (on an H100 they ran: docs/benchmarks.md, "GPU").
        assertThat(tests.out()).contains("GpuHardwareTest", "DeviceSpecTest")
                .containsPattern("\\[\\s+0 tests failed").containsPattern("\\[\\s+[1-9][0-9]* tests successful");
    }

    /**
     * Where the archives go: kept after the test (stoker-dist/target/bundle), so that ./run-tests puts this bundle in
     * the wheel it tests instead of making it again (a minute and a half on 2 cores).
     */
    private static Path freshBundleFolder() throws IOException {
        Path dir = ProcessRun.root().resolve("stoker-dist/target/bundle");
        if (Files.isDirectory(dir)) {
            try (Stream<Path> old = Files.list(dir)) {
                for (Path file : old.toList()) {
                    Files.delete(file);
                }
            }
        }
        return Files.createDirectories(dir);
    }

    private static void assertTheRuntimeHoldsOnlyWhatStokerUses(Path home) throws IOException {
        String modules = Files.readAllLines(home.resolve("runtime/release")).stream()
                .filter(l -> l.startsWith("MODULES=")).findFirst().orElseThrow();
        assertThat(modules).contains("java.base", "jdk.jfr").doesNotContain("java.desktop", "jdk.compiler", "java.sql");
        try (Stream<Path> jars = Files.list(home.resolve("lib"))) {
            // The natives come only from lib/native: no jar that JavaCPP could unpack them from instead.
            assertThat(jars.map(p -> p.getFileName().toString())).contains("stoker-cli.jar")
                    .noneMatch(n -> n.endsWith("linux-x86_64.jar"));
        }
        assertThat(home.resolve("lib/native/libavcodec.so.62")).isRegularFile();
        assertThat(home.resolve("lib/native/libavfilter.so.11")).doesNotExist();
    }

    private static void assertThreeBatchesOfTwelveVideos(Path json) throws IOException {
        JsonNode result = new ObjectMapper().readTree(json.toFile());
        assertThat(result.get("videos").asInt()).isEqualTo(12);
        assertThat(result.get("batches").asInt()).isEqualTo(3);
        assertThat(result.get("samples").asInt()).isPositive();
    }

    /** Runs {@code command} in {@code dir} with only PATH=/usr/bin:/bin and a HOME of its own, plus {@code more}. */
    private ProcessRun bare(Path dir, Consumer<Map<String, String>> more, String... command)
            throws IOException, InterruptedException {
        Path home = Files.createDirectories(temp.resolve("home"));
        return ProcessRun.run(dir, env -> {
            env.clear();
            env.put("PATH", "/usr/bin:/bin");
            env.put("HOME", home.toString());
            more.accept(env);
        }, RUN_TIMEOUT, command).succeeded();
    }
}
