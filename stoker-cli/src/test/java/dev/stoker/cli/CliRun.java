package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;

/** One in-process run of the {@code stoker} command, with what it printed. */
record CliRun(int exitCode, String out, String err) {

    static CliRun stoker(String... args) {
        return run(StokerCommand.commandLine(), args);
    }

    /**
     * {@code stoker demo-data ROOT --classes C --clips N --seconds S}, checked to succeed: the small generated
     * dataset the command tests run on.
     */
    static CliRun demoData(Path root, int classes, int clipsPerClass, int seconds) {
        CliRun run = stoker("demo-data", root.toString(), "--classes", String.valueOf(classes),
                "--clips", String.valueOf(clipsPerClass), "--seconds", String.valueOf(seconds));
        assertThat(run.exitCode()).as(run.err()).isZero();
        return run;
    }

    /**
     * A {@link #demoData} dataset of {@code classes} x {@code clipsPerClass} clips of {@code seconds} s, made once
     * under {@code target/} and shared by the test classes that only read it (demo-data leaves a complete one be).
     */
    static Path sharedDemoData(int classes, int clipsPerClass, int seconds) {
        Path root = Path.of("target", "demo-data", "c" + classes + "-n" + clipsPerClass + "-s" + seconds).toAbsolutePath();
        demoData(root, classes, clipsPerClass, seconds);
        return root;
    }

    /**
     * A {@link #demoData} dataset of three 1 s clips in one class, plus {@code notes.mp4} in that class folder, a
     * text file and no video: the broken file of the failure tests. Returns that file; more go beside it.
     */
    static Path demoDataWithNotAVideo(Path root) throws java.io.IOException {
        demoData(root, 1, 3, 1);
        return java.nio.file.Files.writeString(firstClass(root).resolve("notes.mp4"), "this is not a video\n");
    }

    /** The first class folder of a dataset {@link #demoData} made: where a test puts its broken files. */
    static Path firstClass(Path root) throws java.io.IOException {
        try (var classes = java.nio.file.Files.list(root)) {
            return classes.filter(java.nio.file.Files::isDirectory).sorted().findFirst().orElseThrow();
        }
    }

    /**
     * {@code stoker ARGS} in a JVM of its own, for a test that signals it (in process, a stop would end the tests'
     * JVM): standard output to {@code out}, errors to {@code err}.
     */
    static Process spawn(Path out, Path err, String... args) throws java.io.IOException {
        List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), StokerCommand.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    }

    static CliRun run(CommandLine commandLine, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int exitCode = commandLine.execute(args);
        return new CliRun(exitCode, out.toString(), err.toString());
    }

    List<String> errLines() {
        return err.lines().filter(l -> !l.isBlank()).toList();
    }
}
