package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stoker ingest}, {@code inspect}, {@code verify} and {@code bench} on a shard folder, in process:
 * an ingest reports what it wrote, inspect shows samples, classes, frames, bytes and options, verify
 * passes on intact shards and exits 1 naming the shard and record of a flipped byte, a rerun resumes,
 * and bench reads the shards.
 */
class StoreCommandsTest {
    static final Path source = CliRun.sharedDemoData(2, 2, 2);

    @TempDir
    Path dest;

    @Test
    void ingestInspectVerifyAndBench() throws IOException {
        CliRun ingest = CliRun.stoker("ingest", source.toString(), dest.toString(), "--format", "jpeg", "--size", "112",
                "--shard-size", "300k", "--workers", "2");
        assertThat(ingest.exitCode()).as(ingest.err()).isZero();
        assertThat(ingest.out()).contains("ingested 4 of 4 sources").contains("jpeg");
        assertThat(dest.resolve("ingest-report.txt")).exists();

        CliRun inspect = CliRun.stoker("inspect", dest.toString());
        assertThat(inspect.exitCode()).as(inspect.err()).isZero();
        assertThat(inspect.out()).contains("format       jpeg").contains("samples      4 of 4 sources")
                .contains("abseiling (2)").contains("archery (2)").contains("frames       240").contains("short side 112")
                .contains("per frame");

        CliRun verify = CliRun.stoker("verify", dest.toString());
        assertThat(verify.exitCode()).as(verify.out()).isZero();
        assertThat(verify.out()).contains("all checksums match");

        CliRun bench = CliRun.stoker("bench", dest.toString(), "--batches", "2", "--batch", "2", "--frames", "4");
        assertThat(bench.exitCode()).as(bench.err()).isZero();
        assertThat(bench.out()).contains("samples/s").contains("jpeg shards");

        CliRun headspace = CliRun.stoker("headspace", dest.toString(), "--steps", "2", "--warmup", "0", "--cache", "1",
                "--step-ms", "2", "--batch", "2", "--frames", "4");
        assertThat(headspace.exitCode()).as(headspace.err()).isZero();
        assertThat(headspace.out()).contains(dest + ": 4 samples").contains("ms with the loader");

        CliRun again = CliRun.stoker("ingest", source.toString(), dest.toString(), "--format", "jpeg", "--size", "112",
                "--shard-size", "300k", "--workers", "2");
        assertThat(again.exitCode()).isZero();
        assertThat(again.out()).contains("0 written");

        Path shard;
        try (Stream<Path> files = Files.list(dest)) {
            shard = files.filter(p -> p.getFileName().toString().endsWith(".stk")).sorted().findFirst().orElseThrow();
        }
        try (RandomAccessFile file = new RandomAccessFile(shard.toFile(), "rw")) {
            file.seek(4096);
            int b = file.read();
            file.seek(4096);
            file.write(b ^ 1);
        }
        CliRun damaged = CliRun.stoker("verify", dest.toString());
        assertThat(damaged.exitCode()).isEqualTo(1);
        assertThat(damaged.out()).contains("damaged: " + shard.getFileName() + " record 0").contains("checksum")
                .contains("1 damaged");
    }

    @Test
    void anIngestOfACaptionedManifestKeepsTheTextsAndInspectCountsThem() throws IOException {
        StringBuilder rows = new StringBuilder("path,label,text\n");
        try (var videos = Files.walk(source)) {
            List<Path> files = videos.filter(Files::isRegularFile).sorted().toList();
            for (int i = 0; i < files.size(); i++) {
                rows.append(files.get(i)).append(',').append(files.get(i).getParent().getFileName()).append(',')
                        .append(i == 0 ? "" : "\"clip " + i + ", captioned\"").append('\n');
            }
        }
        Path manifest = Files.writeString(dest.resolve("captions.csv"), rows);
        Path shards = dest.resolve("shards");
        CliRun ingest = CliRun.stoker("ingest", manifest.toString(), shards.toString(), "--size", "64");
        assertThat(ingest.exitCode()).as(ingest.err()).isZero();
        assertThat(Files.readString(shards.resolve("stoker-shards.json"))).contains("\"text\" : \"clip 3, captioned\"");
        CliRun inspect = CliRun.stoker("inspect", shards.toString());
        assertThat(inspect.out()).contains("texts        3 of 4 samples carry one");
    }

    @Test
    void inspectOfAFolderWithoutShardsIsAUsageError() {
        CliRun inspect = CliRun.stoker("inspect", dest.toString());
        assertThat(inspect.exitCode()).isEqualTo(2);
        assertThat(inspect.err()).contains("stoker-shards.json");
    }
}
