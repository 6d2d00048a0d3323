package dev.stoker.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/make-bundle} makes an archive that runs where nothing but glibc is: unpacked into an empty folder
 * and started with a bare environment (no JDK on {@code PATH}, no {@code JAVA_HOME}), its {@code bin/stoker}
 * prints the version and loads batches.
 */
class BundleTest {
    /** 58 MiB before s3:// sources; the AWS SDK v2 (S3 client over the Apache HTTP client, 46 jars) adds about 9. */
    private static final long MAX_BYTES = 70L << 20;

    @TempDir
    Path tmp;

    @Test
    void theBundleRunsTheCommandWithNoJdkAround() throws Exception {
        Path root = ProcessRun.root();
        Path dist = tmp.resolve("dist");
        ProcessRun.run(root, env -> { }, Duration.ofMinutes(5),
                "bin/make-bundle", "--no-build", "--out", dist.toString()).succeeded();
        String name = "stoker-" + ProcessRun.version() + "-linux-x86_64";
        Path archive = dist.resolve(name + ".tar.gz");
        assertThat(archive).exists();
        assertThat(Files.size(archive)).as("bundle bytes").isLessThanOrEqualTo(MAX_BYTES);

        Path unpacked = Files.createDirectories(tmp.resolve("empty"));
        ProcessRun.run(unpacked, env -> { }, Duration.ofMinutes(2), "tar", "-xzf", archive.toString()).succeeded();
        Path home = unpacked.resolve(name);
        assertThat(home.resolve("runtime/bin/java")).isExecutable();
        assertThat(Files.readString(home.resolve("runtime/release"))).contains("JAVA_VERSION=\"25");
        try (Stream<Path> jars = Files.list(home.resolve("lib"))) {
            Path natives = jars.filter(p -> p.getFileName().toString().matches("ffmpeg-.*-linux-x86_64\\.jar"))
                    .findFirst().orElseThrow();
            try (ZipFile zip = new ZipFile(natives.toFile())) {
                assertThat(zip.getEntry("org/bytedeco/ffmpeg/linux-x86_64/libavcodec.so.62")).isNotNull();
                assertThat(zip.stream().map(e -> e.getName()))
                        .noneMatch(n -> n.contains("libavdevice") || n.endsWith("linux-x86_64/ffmpeg"));
            }
        }

        Consumer<Map<String, String>> bare = env -> {
            String user = env.get("HOME");
            env.clear();
            env.put("PATH", "/usr/bin:/bin");
            env.put("HOME", user);   // the demo dataset's cache, as a user's would be
        };
        ProcessRun version = ProcessRun.run(tmp, bare, Duration.ofMinutes(1), home.resolve("bin/stoker").toString(),
                "--version").succeeded();
        assertThat(version.out()).contains(ProcessRun.version());
        ProcessRun bench = ProcessRun.run(tmp, bare, Duration.ofMinutes(5), home.resolve("bin/stoker").toString(),
                "bench", "--batches", "3", "--no-reference").succeeded();
        assertThat(bench.out()).contains("samples/s");
    }
}
