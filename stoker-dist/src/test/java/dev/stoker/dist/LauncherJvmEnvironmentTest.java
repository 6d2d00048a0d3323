package dev.stoker.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code ./stoker} in a shell whose JVMs are configured through the environment: the JDK probe is not fooled
 * by the variables' "Picked up ..." banners and starts nothing they ask for (here a flight recording), and
 * the real run still gets them.
 */
class LauncherJvmEnvironmentTest {
    static final List<String> VARIABLES = List.of("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS");
    static final Duration TIMEOUT = Duration.ofMinutes(3);

    @TempDir
    Path recordings;

    @BeforeAll
    static void buildAndCacheWithoutTheVariables() throws Exception {
        // A stale jar would be rebuilt by Maven, and a missing startup cache made, both under the variable
        // of the first test: one plain run first, so that the tests see only the probe and the real run.
        ProcessRun.run(ProcessRun.root(), env -> VARIABLES.forEach(env::remove), TIMEOUT, "./stoker", "--version")
                .succeeded();
    }

    @ParameterizedTest
    @ValueSource(strings = {"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS"})
    void versionRunsWithTheVariableSetAndOnlyTheRealRunGetsIt(String variable) throws Exception {
        ProcessRun run = stokerVersion(variable, env -> { });

        assertOneRealRunGot(variable, run);
    }

    @ParameterizedTest
    @ValueSource(strings = {"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS"})
    void aJavaHomeWithoutReleaseFileIsProbedWithoutTheVariable(String variable, @TempDir Path home) throws Exception {
        // An image without a release file: the probe has to run its java, and must do so without the variable.
        Path realJava = Path.of(System.getProperty("java.home"), "bin", "java");
        Files.createDirectories(home.resolve("bin"));
        Files.createSymbolicLink(home.resolve("bin/java"), realJava);

        ProcessRun run = stokerVersion(variable, env -> env.put("JAVA_HOME", home.toString()));

        assertOneRealRunGot(variable, run);
        assertThat(run.out()).contains("Java " + Runtime.version());
    }

    private ProcessRun stokerVersion(String variable, Consumer<Map<String, String>> more)
            throws IOException, InterruptedException {
        // %p: the recording of each JVM gets a file of its own, so a recording the probe started would show.
        String options = "-Dstoker.test=launcher -XX:StartFlightRecording:filename=" + recordings + "/run-%p.jfr";
        return ProcessRun.run(ProcessRun.root(), env -> {
            VARIABLES.forEach(env::remove);
            env.put(variable, options);
            more.accept(env);
        }, TIMEOUT, "./stoker", "--version").succeeded();
    }

    private void assertOneRealRunGot(String variable, ProcessRun run) throws IOException {
        assertThat(run.out()).as(run.err()).contains("stoker " + ProcessRun.version());
        // The JVM prints the banner when it reads the variable: once, from the run whose output we see.
        assertThat(run.err().lines().filter(l -> l.contains("Picked up " + variable + ": -Dstoker.test=launcher")))
                .as("banners in stderr:%n%s", run.err()).hasSize(1);
        try (Stream<Path> files = Files.list(recordings)) {
            assertThat(files.map(p -> p.getFileName().toString()).toList())
                    .as("flight recordings: one from the real run, none from the probe or the startup cache")
                    .singleElement().satisfies(name -> assertThat(name).matches("run-\\d+\\.jfr"));
        }
    }
}
