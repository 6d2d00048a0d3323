package dev.stoker.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** One finished run of a script or program, as a user's shell would start it, with what it printed. */
record ProcessRun(List<String> command, int exitCode, String out, String err) {

    /** The repository root (where {@code ./stoker} is), as Maven passes it. */
    static Path root() {
        return Path.of(System.getProperty("stoker.root", "..")).toAbsolutePath().normalize();
    }

    /** The project version, as {@code stoker --version} prints it. */
    static String version() {
        return System.getProperty("stoker.version");
    }

    /**
     * Runs {@code command} in {@code dir} with the environment {@code env} edits (a copy of this JVM's),
     * killing it (and failing) past {@code timeout}.
     */
    static ProcessRun run(Path dir, Consumer<Map<String, String>> env, Duration timeout, String... command)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile("stoker-dist-out", ".txt");
        Path err = Files.createTempFile("stoker-dist-err", ".txt");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
            env.accept(builder.environment());
            Process process = builder.start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor();
                throw new AssertionError(String.join(" ", command) + ": still running after " + timeout
                        + "; stderr so far:\n" + Files.readString(err));
            }
            return new ProcessRun(List.of(command), process.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** Checks that the run succeeded, showing what it printed when it did not. */
    ProcessRun succeeded() {
        assertThat(exitCode).as("exit code of %s; stdout:%n%s%nstderr:%n%s", String.join(" ", command), out, err).isZero();
        return this;
    }
}
