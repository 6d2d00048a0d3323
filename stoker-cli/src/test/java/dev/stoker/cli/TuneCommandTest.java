package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.loader.LoaderOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** stoker tune end to end on a tiny dataset: real bench trials in child processes, outputs, resume. */
class TuneCommandTest {

    @Test
    void writesExperimentsBestConfigAndReportAndContinuesWhereItStopped(@TempDir Path dir) throws IOException {
        Path data = dir.resolve("tiny");
        CliRun.demoData(data, 2, 2, 1);
        Path out = dir.resolve("tune");
        String[] common = {"tune", data.toString(), "--out", out.toString(), "--repeats", "1", "--batches", "2",
                "--batch", "2", "--frames", "4"};

        CliRun first = CliRun.stoker(concat(common, "--trials", "2"));
        assertThat(first.exitCode()).as(first.err()).isZero();
        List<String> trials = Files.readAllLines(out.resolve("experiments.jsonl"));
        assertThat(trials).hasSize(2);
        ObjectMapper json = new ObjectMapper();
        JsonNode start = json.readTree(trials.get(0));
        JsonNode second = json.readTree(trials.get(1));
        assertThat(start.get("parent").asInt()).isEqualTo(-1);
        assertThat(second.get("parent").asInt()).isEqualTo(0);
        assertThat(second.get("hypothesis").asText()).isNotBlank();
        assertThat(start.get("metrics").get("samples_per_second").asDouble()).isPositive();
        LoaderOptions best = LoaderOptions.read(out.resolve("best.json"));
        assertThat(best.config().stages()).as("the effective settings, spelled out").containsKey("decode");
        assertThat(best.clip().frames()).as("the start's loader flags are in it: bench --config reads it").isEqualTo(4);
        assertThat(best.batch().size()).isEqualTo(2);
        assertThat(Files.readString(out.resolve("report.html"))).contains("<html").contains("Chart");
        // The decode ceiling, measured once before the search: every core decoding the run's clips at once.
        JsonNode ceiling = json.readTree(out.resolve("decode-ceiling.json").toFile());
        assertThat(ceiling.get("samples_per_second").asDouble()).isPositive();
        assertThat(ceiling.get("threads").asInt()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(first.out()).contains("measuring the machine's decode ceiling", "decode ceiling: ")
                .containsPattern("decode ceiling: [0-9.]+ samples/s; the start config runs at [0-9.]+ of it, the best at");
        assertThat(Files.readString(out.resolve("report.html"))).contains("Decode ceiling: ", "\"name\":\"decode ceiling\"");

        CliRun resumed = CliRun.stoker(concat(common, "--trials", "3"));
        assertThat(resumed.exitCode()).as(resumed.err()).isZero();
        assertThat(resumed.out()).as("a continued search reads the ceiling it measured").doesNotContain("measuring the machine's")
                .contains("decode ceiling: ");
        assertThat(Files.readAllLines(out.resolve("experiments.jsonl"))).hasSize(3)
                .startsWith(trials.toArray(String[]::new));
    }

    @Test
    void startAllAndCompareDefaultRunStartDefaultAndBestSideBySide(@TempDir Path dir) throws IOException {
        Path data = dir.resolve("tiny");
        CliRun.demoData(data, 2, 2, 1);
        Path out = dir.resolve("tune");
        CliRun run = CliRun.stoker("tune", data.toString(), "--out", out.toString(), "--start-all", "2", "--compare-default",
                "--no-decode-ceiling",
                "--trials", "2", "--repeats", "2", "--batches", "2", "--batch", "2", "--frames", "4");
        assertThat(run.exitCode()).as(run.err()).isZero();
        ObjectMapper json = new ObjectMapper();
        JsonNode start = json.readTree(Files.readAllLines(out.resolve("experiments.jsonl")).getFirst());
        for (String stage : List.of("fetch", "demux", "decode", "convert", "collate")) {
            assertThat(start.at("/options/config/stages/" + stage + "/concurrency").asInt()).as(stage).isEqualTo(2);
        }
        JsonNode compared = json.readTree(out.resolve("side-by-side.json").toFile());
        assertThat(compared.get("entries")).hasSize(3);
        compared.get("entries").forEach(e -> assertThat(e.get("samples_per_second")).hasSize(2));
        assertThat(List.of(compared.at("/entries/0/name").asText(), compared.at("/entries/1/name").asText(),
                compared.at("/entries/2/name").asText())).containsExactly("start", "default", "best");
        assertThat(run.out()).contains("side by side: best", "vs start", "vs default");
        assertThat(Files.readString(out.resolve("report.html"))).contains("Side by side", "vs default");
        assertThat(out.resolve("decode-ceiling.json")).doesNotExist();

        CliRun both = CliRun.stoker("tune", data.toString(), "--out", dir.resolve("x").toString(), "--start-all", "2",
                "--config", out.resolve("best.json").toString());
        assertThat(both.exitCode()).isEqualTo(2);
        assertThat(both.err()).contains("--start-all 2 (expected: 1+, and no --config)");
    }

    @Test
    void badCeilingHeadspaceMinGainAndOutAreUsageErrorsBeforeAnyTrial(@TempDir Path dir) throws IOException {
        // Read only after the search, these ended hours of trials with an error (or a failed headspace run).
        Path data = CliRun.sharedDemoData(2, 2, 1);
        Path out = dir.resolve("tune");
        List<List<String>> refused = List.of(
                List.of("--ceiling", "0", "--ceiling: 0.0 (expected: a throughput above 0 samples/s)"),
                List.of("--ceiling", "-3", "--ceiling: -3.0 (expected: a throughput above 0 samples/s)"),
                List.of("--headspace", "0", "--headspace: 0.0 (expected: a step above 0 ms)"),
                List.of("--headspace", "-1", "--headspace: -1.0 (expected: a step above 0 ms)"),
                List.of("--min-gain", "-0.5", "--min-gain: -0.5 (expected: a share of 0 or more, e.g. 0.03 for 3%)"));
        for (List<String> c : refused) {
            CliRun run = CliRun.stoker("tune", data.toString(), "--out", out.toString(), c.get(0), c.get(1));
            assertThat(run.exitCode()).as(c.get(0)).isEqualTo(2);
            assertThat(run.err()).contains(c.get(2));
            assertThat(run.out()).as("before the search").doesNotContain("tuning");
        }
        assertThat(out).as("no trial ran").doesNotExist();

        Path file = Files.writeString(dir.resolve("afile"), "not a folder\n");
        CliRun onAFile = CliRun.stoker("tune", data.toString(), "--out", file.toString());
        assertThat(onAFile.exitCode()).isEqualTo(2);
        assertThat(onAFile.err()).contains("--out: " + file + " is a file (expected: a folder, made if missing)");
        CliRun underAFile = CliRun.stoker("tune", data.toString(), "--out", file.resolve("sub").toString());
        assertThat(underAFile.exitCode()).isEqualTo(2);
        assertThat(underAFile.err()).contains("--out: " + file.resolve("sub") + " (expected: a folder, made if missing; ")
                .contains("not a directory)");
    }

    @Test
    void aContinuedSearchMustMeasureTheSameWorkloadAndTheFailedSamplesAreSaid(@TempDir Path dir) throws IOException {
        Path data = dir.resolve("tiny");
        CliRun.demoDataWithNotAVideo(data);
        Path out = dir.resolve("tune");
        List<String> common = List.of("tune", data.toString(), "--out", out.toString(), "--no-decode-ceiling", "--repeats", "1",
                "--batches", "2", "--batch", "2", "--trials", "1");
        CliRun first = CliRun.stoker(concat(common.toArray(String[]::new), "--frames", "4"));
        assertThat(first.exitCode()).as(first.err()).isZero();
        // Every trial skips the broken file: the search measures the dataset without it, which the user is told.
        assertThat(first.out()).contains("  1 sample failed in trial 0 (1 file) and was skipped: the trials measure the dataset"
                + " without them; which and why: \"failures\" in " + out.resolve("trials/trial-0.bench.json"));
        // Nothing beat the start (nothing else ran): one figure, no ratio of the start to itself.
        assertThat(first.out()).containsPattern("best: the start config, [0-9.]+ samples/s \\(trial 0, one run\\):"
                + " nothing beat the start config above the noise").doesNotContainPattern("[0-9]x;");
        List<String> trials = Files.readAllLines(out.resolve("experiments.jsonl"));

        // 8 frames against the 4 recorded: another workload, whose trials would be compared with those as one.
        CliRun otherFrames = CliRun.stoker(concat(common.toArray(String[]::new), "--frames", "8"));
        assertThat(otherFrames.exitCode()).isEqualTo(2);
        assertThat(otherFrames.err()).contains("--out: " + out + " holds a search that started from other loader options"
                + " (there → now: clip.frames: 4 → 8) (expected: another --out for a new search, or the same options to"
                + " continue that one)");
        // A knob the search moves is no other workload.
        CliRun otherKnob = CliRun.stoker(concat(common.toArray(String[]::new), "--frames", "4", "--decoder-threads", "2"));
        assertThat(otherKnob.exitCode()).as(otherKnob.err()).isZero();
        assertThat(otherKnob.out()).contains("continuing the search in " + out + ": 1 trials done");

        Path copy = dir.resolve("copy");
        try (var files = Files.walk(data)) {
            for (Path f : files.toList()) {
                Files.copy(f, copy.resolve(data.relativize(f).toString()));
            }
        }
        List<String> onTheCopy = new java.util.ArrayList<>(common);
        onTheCopy.set(1, copy.toString());
        CliRun otherData = CliRun.stoker(concat(onTheCopy.toArray(String[]::new), "--frames", "4"));
        assertThat(otherData.exitCode()).isEqualTo(2);
        assertThat(otherData.err()).contains("--out: " + out + " holds a search on " + data.toRealPath() + ", not "
                + copy.toRealPath() + " (expected: another --out for a new search, or the same dataset to continue that one)");
        assertThat(Files.readAllLines(out.resolve("experiments.jsonl"))).as("no trial of another workload").isEqualTo(trials);
    }

    @Test
    void stoppedMidSearchItSaysWhatItKeepsAndLeavesNoTrialRunning(@TempDir Path dir) throws Exception {
        Path data = CliRun.sharedDemoData(2, 2, 1);
        Path out = dir.resolve("tune");
        Path err = dir.resolve("err.txt");
        Process tuner = CliRun.spawn(dir.resolve("out.txt"), err, "tune", data.toString(), "--out", out.toString(),
                "--no-decode-ceiling", "--trials", "20", "--repeats", "3", "--batches", "40", "--batch", "2", "--frames", "4");
        try {
            // Stopped while a trial runs, after one ended: something is kept, and a child is under way.
            Path journal = out.resolve("experiments.jsonl");
            List<ProcessHandle> children = List.of();
            while (children.isEmpty()) {
                assertThat(tuner.isAlive()).as("the tuner ended: %s", Files.readString(err)).isTrue();
                Thread.sleep(100);
                if (Files.exists(journal) && !Files.readAllLines(journal).isEmpty()) {
                    children = tuner.descendants().toList();
                }
            }
            // SIGTERM: the JVM's shutdown hooks run as for Ctrl-C's SIGINT (a SIGINT that a test's own parent may have
            // left ignored would never arrive).
            tuner.destroy();
            assertThat(tuner.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            for (ProcessHandle child : children) {
                child.onExit().get(60, java.util.concurrent.TimeUnit.SECONDS);
            }
            assertThat(children).noneMatch(ProcessHandle::isAlive);
            // A trial started after the children were listed would be missed above: none of this search is left.
            assertThat(ProcessHandle.allProcesses().filter(p -> p.info().commandLine()
                    .filter(c -> c.contains(out.toString())).isPresent()).toList()).as("trials left running").isEmpty();
            List<String> trials = Files.readAllLines(journal);
            ObjectMapper json = new ObjectMapper();
            for (String t : trials) {
                assertThat(json.readTree(t).get("status").asText()).as("the trial stopped with the tuner is no failed trial")
                        .isEqualTo("ok");
            }
            assertThat(Files.readString(err)).contains("stoker tune: stopped; kept: the best config so far in "
                    + out.resolve("best.json") + ", " + trials.size() + (trials.size() == 1 ? " trial" : " trials") + " in "
                    + journal + "; the same command continues the search");
        } finally {
            tuner.destroyForcibly();
        }
    }

    private static String[] concat(String[] a, String... b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
