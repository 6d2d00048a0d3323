package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** bench, clip and demo-data on a small generated dataset: what a user runs, checked end to end. */
class VideoCommandsTest {
    @TempDir
    static Path dir;
    static Path data;

    @BeforeAll
    static void makeData() {
        data = dir.resolve("tiny");
        assertThat(CliRun.demoData(data, 2, 3, 2).out()).contains("wrote 6 clips to");
    }

    @Test
    void demoDataIsIdempotent() {
        assertThat(CliRun.demoData(data, 2, 3, 2).out()).contains("already holds this demo dataset (6 clips)");
    }

    @Test
    void benchWritesTheResultsScriptsRead() throws IOException {
        Path json = dir.resolve("bench.json");
        Path trace = dir.resolve("bench.trace.json");
        CliRun run = CliRun.stoker("bench", data.toString(), "--batches", "4", "--batch", "2", "--frames", "8",
                "--concurrency", "decode=2", "--json", json.toString(), "--trace", trace.toString(), "--headspace", "5",
                "--ceiling");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("samples/s").contains("decode efficiency").contains("bottleneck:");
        JsonNode r = new ObjectMapper().readTree(json.toFile());
        assertThat(r.get("samples_per_second").asDouble()).isPositive();
        assertThat(r.get("frames_per_second").asDouble()).isCloseTo(r.get("samples_per_second").asDouble() * 8,
                org.assertj.core.api.Assertions.within(1e-6));
        assertThat(r.get("decode_efficiency").asDouble()).isPositive();
        assertThat(r.get("decoded_frames_per_clip").asDouble()).isGreaterThanOrEqualTo(8);
        JsonNode ceiling = r.get("machine_ceiling");
        assertThat(ceiling.get("threads").asInt()).isEqualTo(r.get("cores").asInt());
        assertThat(ceiling.get("ceiling").asDouble()).isPositive().isCloseTo(ceiling.get("parallel_clips_per_second").asDouble()
                / (ceiling.get("threads").asInt() * ceiling.get("single_clips_per_second").asDouble()),
                org.assertj.core.api.Assertions.within(1e-9));
        assertThat(run.out()).contains("machine ceiling");
        // The CPU the run used, from the same figures as the JSON's.
        assertThat(r.get("cpu_seconds_per_sample").asDouble()).isPositive();
        assertThat(run.out()).containsPattern("cpu +[0-9.]+ of " + r.get("cores").asInt() + " cores");
        // The first batch beside the least any schedule of its two clips could take: its slowest clip alone, or
        // both clips' work over the cores.
        JsonNode first = r.get("first_batch_bound");
        assertThat(first.get("seconds").asDouble()).isEqualTo(r.get("first_batch_seconds").asDouble());
        assertThat(first.get("clips").asInt()).isEqualTo(2);
        assertThat(Path.of(first.get("slowest_clip").asText())).startsWith(data);
        assertThat(first.get("slowest_clip_frames_decoded").asInt()).isGreaterThanOrEqualTo(8);
        assertThat(first.get("work_seconds").asDouble()).isGreaterThanOrEqualTo(first.get("slowest_clip_seconds").asDouble());
        assertThat(first.get("bound_seconds").asDouble()).isPositive().isEqualTo(Math.max(first.get("slowest_clip_seconds").asDouble(),
                first.get("work_seconds").asDouble() / first.get("cores").asInt()));
        assertThat(run.out()).containsPattern("first batch +[0-9.]+ s +\\(no schedule beats [0-9.]+ s here: its slowest clip takes");
        assertThat(r.get("memory").get("timeline").isArray()).isTrue();
        assertThat(r.get("memory").get("after_warmup").get("rssBytes").asLong()).isPositive();
        assertThat(r.get("failures").isArray()).isTrue();
        assertThat(r.get("batches").asLong()).isEqualTo(4);
        assertThat(r.get("headspace").get("floor_step_ms").asDouble()).isPositive();
        assertThat(r.get("headspace").get("waiting_share").asDouble()).isBetween(0.0, 1.0);
        assertThat(run.out()).contains("headspace ");
        assertThat(r.get("config").get("stages").get("decode").get("concurrency").asInt()).isEqualTo(2);
        List<String> stages = new ArrayList<>();
        r.get("stats").get("stages").forEach(s -> stages.add(s.get("name").asText()));
        assertThat(stages).containsExactly("source", "fetch", "demux", "decode", "convert", "batch", "collate");
        JsonNode events = new ObjectMapper().readTree(trace.toFile()).get("traceEvents");
        List<String> names = new ArrayList<>();
        events.forEach(e -> names.add(e.get("name").asText()));
        assertThat(names).contains("fetch", "demux", "decode", "convert", "collate");
    }

    @Test
    void benchReportsBadFilesByPathStageAndReason() throws IOException {
        Path mixed = dir.resolve("mixed");
        Path cls = Files.createDirectories(mixed.resolve("only_class"));
        try (var videos = Files.walk(data)) {
            for (Path v : videos.filter(p -> p.toString().endsWith(".mp4")).toList()) {
                Files.copy(v, cls.resolve(v.getFileName()));
            }
        }
        Files.writeString(cls.resolve("readme.mp4"), "not a video");
        Path json = dir.resolve("mixed.json");
        CliRun run = CliRun.stoker("bench", mixed.toString(), "--batches", "3", "--batch", "2", "--frames", "4",
                "--json", json.toString(), "--no-reference");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("failures by reason");
        JsonNode failure = new ObjectMapper().readTree(json.toFile()).get("failures").get(0);
        assertThat(failure.get("path").asText()).endsWith("readme.mp4");
        assertThat(failure.get("stage").asText()).isEqualTo("demux");
        assertThat(failure.get("reason").asText()).isNotBlank();
    }

    @Test
    void clipWritesFramesAndTheirTimestamps() throws IOException {
        Path video;
        try (var videos = Files.walk(data)) {
            video = videos.filter(p -> p.toString().endsWith(".mp4")).findFirst().orElseThrow();
        }
        Path out = dir.resolve("clip");
        CliRun run = CliRun.stoker("clip", video.toString(), "--start", "0.5", "--frames", "4", "--stride", "3",
                "--size", "64x48", "--out", out.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(out.resolve("frame_0000.png")).exists();
        assertThat(out.resolve("frame_0003.png")).exists();
        JsonNode clip = new ObjectMapper().readTree(out.resolve("clip.json").toFile());
        assertThat(clip.get("frameIndices").toString()).isEqualTo("[15,18,21,24]");
        assertThat(clip.get("ptsSeconds").get(0).asDouble()).isEqualTo(0.5);
        assertThat(javax.imageio.ImageIO.read(out.resolve("frame_0001.png").toFile()).getWidth()).isEqualTo(64);
    }

    @Test
    void aTarArchiveIsADatasetWhoseMembersScanBenchAndClipAsFiles() throws Exception {
        Path archive = dir.resolve("tiny.tar");
        Process tar = new ProcessBuilder("tar", "-cf", archive.toString(), "-C", data.toString(), ".").inheritIO().start();
        assertThat(tar.waitFor()).isZero();
        CliRun scan = CliRun.stoker("scan", archive.toString());
        assertThat(scan.exitCode()).as(scan.err()).isZero();
        assertThat(scan.out()).contains("6 ok, 0 failed");
        CliRun bench = CliRun.stoker("bench", archive.toString(), "--batches", "2", "--batch", "2", "--frames", "4",
                "--size", "32", "--no-reference");
        assertThat(bench.exitCode()).as(bench.err()).isZero();
        assertThat(bench.out()).contains("samples/s");
        Files.copy(archive, dir.resolve("tiny2.tar"));
        CliRun pattern = CliRun.stoker("scan", dir.resolve("tiny{,2}.tar").toString());
        assertThat(pattern.exitCode()).as(pattern.err()).isZero();
        assertThat(pattern.out()).as("a WebDataset pattern naming both archives").contains("12 ok, 0 failed");
        String member;
        try (var videos = Files.walk(data)) {
            member = data.relativize(videos.filter(p -> p.toString().endsWith(".mp4")).findFirst().orElseThrow()).toString();
        }
        CliRun clip = CliRun.stoker("clip", archive.resolve(member).toString(), "--frames", "2", "--out",
                dir.resolve("member-clip").toString());
        assertThat(clip.exitCode()).as(clip.err()).isZero();
        assertThat(dir.resolve("member-clip/frame_0001.png")).exists();
        CliRun missing = CliRun.stoker("clip", archive.resolve("no/such.mp4").toString(), "--out",
                dir.resolve("no-clip").toString());
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("VIDEO: " + archive.resolve("no/such.mp4") + " does not exist");
        assertThat(dir.resolve("no-clip")).doesNotExist();
    }

    @Test
    void aMissingDatasetIsAUsageErrorOnOneLine() {
        CliRun run = CliRun.stoker("bench", dir.resolve("nope").toString(), "--batches", "1");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.errLines()).hasSize(1);
        assertThat(run.err()).contains("nope");
    }
}
