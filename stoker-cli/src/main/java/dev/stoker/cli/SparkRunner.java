package dev.stoker.cli;

import dev.stoker.observe.internal.LiveStatsView;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipFile;

/**
 * {@code stoker ingest --spark MASTER}: the {@code stoker-spark} module's job in a JVM of its own, so the CLI never
 * carries Spark (230 MB). Its class path is {@code stoker-spark/target/stoker-spark.jar} plus the
 * {@code target/classpath.txt} the build writes (Spark included), its flags the {@code --add-opens} list
 * {@code spark-submit} would add (kept in the jar, written from the module's pom); its output is this command's, its
 * progress drawn as the local ingest's bar ({@link SparkProgressLines}).
 */
final class SparkRunner {
    private SparkRunner() {
    }

    /** Runs the job; its exit code. */
    static int run(PrintWriter out, List<String> jobArgs) throws IOException, InterruptedException {
        Path target = directory();
        Path jar = target.resolve("stoker-spark.jar");
        Path classpath = target.resolve("classpath.txt");
        if (!Files.isRegularFile(jar) || !Files.isRegularFile(classpath)) {
            throw new IllegalStateException("the Spark module is not built: " + jar + " or " + classpath + " is missing"
                    + " (expected: 'mvn -pl stoker-spark -am package -DskipTests', which ./stoker runs for ingest --spark)");
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            String flags = new String(zip.getInputStream(zip.getEntry("dev/stoker/spark/jvm-flags.txt")).readAllBytes(),
                    StandardCharsets.UTF_8);
            command.addAll(List.of(flags.strip().split("\\s+")));
        }
        command.add("-Dlog4j2.configurationFile=dev/stoker/spark/log4j2-local.properties");
        command.add("-cp");
        command.add(jar + java.io.File.pathSeparator + Files.readString(classpath).strip());
        command.add("dev.stoker.spark.SparkIngestMain");
        command.addAll(jobArgs);
        command.add("--progress-lines");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putIfAbsent("SPARK_LOCAL_IP", "127.0.0.1");
        Process process = builder.start();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
             SparkProgressLines shown = new SparkProgressLines(out, LiveStatsView.stdoutIsTerminal())) {
            String line;
            while ((line = lines.readLine()) != null) {
                shown.line(line);
            }
        } finally {
            if (process.isAlive()) {
                process.destroy();
            }
        }
        return process.waitFor();
    }

    /** stoker-spark/target beside this CLI's module (target/stoker-cli.jar or target/classes: three levels up). */
    private static Path directory() {
        try {
            Path self = Path.of(SparkRunner.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return self.getParent().getParent().getParent().resolve("stoker-spark").resolve("target");
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate the stoker CLI's own jar: " + e.getMessage(), e);
        }
    }
}
