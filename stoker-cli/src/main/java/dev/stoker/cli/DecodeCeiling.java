package dev.stoker.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.tune.Ceiling;
import dev.stoker.tune.TrialSpec;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The machine's decode ceiling for {@code stoker tune}: one {@code stoker bench --ceiling} run of the start
 * config in a child process, whose clips are then decoded on one thread per core at once with no pipeline
 * around them. That rate bounds every config of the search (a config changes how the work is scheduled, not
 * what is decoded), so the report can show how much was left to find. Kept in {@code decode-ceiling.json}
 * beside the journal: a search that continues does not measure it again.
 */
final class DecodeCeiling {
    static final String FILE = "decode-ceiling.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    private DecodeCeiling() { }

    /** The ceiling saved in {@code out}, else measured now and saved; empty (with a line saying why) when the run failed. */
    static Optional<Ceiling> measureOrRead(BenchTrialRunner runner, Path out, PipelineConfig start, long trialSeconds,
                                           PrintWriter w) throws IOException {
        Path file = out.resolve(FILE);
        if (Files.exists(file)) {
            return Optional.of(fromJson(JSON.readTree(file.toFile()), file));
        }
        w.println("measuring the machine's decode ceiling: the start config's clips decoded on every core at once...");
        w.flush();
        JsonNode bench;
        try {
            // Three times a trial's time: the run, the single-thread reference and the alternated ceiling passes.
            bench = runner.run(new TrialSpec(-3, start, Map.of(), trialSeconds * 1000 * 3), List.of("--ceiling")).bench();
        } catch (Exception e) {
            w.println("the decode ceiling run failed (the search goes on without it): " + e.getMessage());
            return Optional.empty();
        }
        JsonNode c = bench.path("machine_ceiling");
        if (!c.path("parallel_clips_per_second").isNumber()) {
            w.println("the decode ceiling run measured no ceiling (no clip delivered?); the search goes on without it");
            return Optional.empty();
        }
        ObjectNode saved = JSON.createObjectNode();
        saved.put("samples_per_second", c.path("parallel_clips_per_second").asDouble());
        saved.put("threads", c.path("threads").asInt());
        saved.put("single_clips_per_second", c.path("single_clips_per_second").asDouble());
        saved.put("machine_ceiling", c.path("ceiling").asDouble());
        saved.put("start_samples_per_second", bench.path("samples_per_second").asDouble());
        Files.writeString(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(saved));
        Ceiling ceiling = fromJson(saved, file);
        w.printf(Locale.ROOT, "decode ceiling: %.1f samples/s (%s); the start config ran at %.1f samples/s beside it, %.2f of it%n",
                ceiling.samplesPerSecond(), ceiling.how(), saved.path("start_samples_per_second").asDouble(),
                ceiling.shareOf(saved.path("start_samples_per_second").asDouble()));
        w.flush();
        return Optional.of(ceiling);
    }

    private static Ceiling fromJson(JsonNode saved, Path file) {
        double sps = saved.path("samples_per_second").asDouble();
        if (!(sps > 0)) {
            throw new IllegalStateException(file + ": no samples_per_second (delete it to measure the ceiling again)");
        }
        return new Ceiling("decode ceiling", sps, String.format(Locale.ROOT,
                "%d threads decoding the start config's clips at once, no pipeline: %.2f of %d x one thread alone",
                saved.path("threads").asInt(), saved.path("machine_ceiling").asDouble(), saved.path("threads").asInt()));
    }
}
