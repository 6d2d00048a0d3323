package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command that reads a dataset, a shard folder or a video, given a missing path, a file that is not one and an
 * empty folder, fails with one line on standard error that names the path once, says what was expected, and exits
 * 1 or 2 before any work ({@code tune} runs no trial).
 */
class EachInputNamedOnceTest {
    @TempDir
    Path dir;

    @Test
    void aBadInputIsNamedOnceByEveryCommand() throws IOException {
        Path missing = dir.resolve("nonexistent");
        Path text = Files.writeString(dir.resolve("notes.txt"), "not a dataset\n");
        Path csv = Files.writeString(dir.resolve("bad.csv"), "a,b,c,d,e,f\n");
        Path empty = Files.createDirectories(dir.resolve("empty"));
        Path tuneOut = dir.resolve("tune");
        List<String> failures = new ArrayList<>();
        for (Path input : List.of(missing, text, csv, empty)) {
            String p = input.toString();
            for (String[] args : new String[][] {
                    {"bench", p},
                    {"bench", "formats", p, "--dir", dir.resolve("formats").toString()},
                    {"headspace", p},
                    {"tune", p, "--out", tuneOut.toString()},
                    {"ingest", p, dir.resolve("shards").toString()},
                    {"scan", p},
                    {"verify", p},
                    {"inspect", p},
                    {"clip", p, "--out", dir.resolve("clip").toString()},
            }) {
                CliRun run = CliRun.stoker(args);
                String command = "stoker " + args[0] + (args[1].equals("formats") ? " formats" : "");
                String what = String.join(" ", args) + " -> exit " + run.exitCode() + ", stderr: " + run.err().strip();
                List<String> lines = run.errLines();
                if (run.exitCode() != 1 && run.exitCode() != 2 || lines.size() != 1 || !lines.getFirst().startsWith(command + ": ")
                        || occurrences(lines.getFirst(), p) != 1 || lines.getFirst().contains("Exception")) {
                    failures.add(what);
                }
            }
        }
        assertThat(failures).as("commands whose error does not name the input exactly once, on one line").isEmpty();
        assertThat(tuneOut.resolve("trials")).as("tune ran no trial on a bad dataset").doesNotExist();
    }

    private static int occurrences(String line, String path) {
        int n = 0;
        for (int i = line.indexOf(path); i >= 0; i = line.indexOf(path, i + path.length())) {
            n++;
        }
        return n;
    }
}
