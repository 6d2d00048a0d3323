package dev.stoker.bench.internal;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.tune.internal.Ceiling;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * The machine's decode ceiling, as measured ({@link SingleThreadReference#measureCeiling}): {@code threads}
 * threads decoding the run's clips at once with no pipeline around them, against one thread alone measured
 * beside them. As a {@link Ceiling} (the one type for a throughput no config can pass) its parallel rate bounds
 * every config of a tuning search: a config changes how the work is scheduled, not what is decoded.
 * {@code stoker bench --ceiling} writes it as {@code machine_ceiling}; {@code stoker tune} keeps it in
 * {@value #FILE} beside its journal, so a search that continues does not measure it again.
 *
 * @param threads                threads decoding at once
 * @param singleClipsPerSecond   one thread alone, measured beside them
 * @param parallelClipsPerSecond all threads together
 * @param ceiling                parallel / (threads x single): the best decode efficiency this machine allows
 */
public record DecodeCeiling(@JsonProperty("threads") int threads,
                            @JsonProperty("single_clips_per_second") double singleClipsPerSecond,
                            @JsonProperty("parallel_clips_per_second") double parallelClipsPerSecond,
                            @JsonProperty("ceiling") double ceiling) {
    public static final String FILE = "decode-ceiling.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** As a bound on samples/s, for the tuner's report. */
    public Ceiling asCeiling() {
        return new Ceiling("decode ceiling", parallelClipsPerSecond, String.format(Locale.ROOT,
                "%d threads decoding the start config's clips at once, no pipeline: %.2f of %d x one thread alone",
                threads, ceiling, threads));
    }

    /**
     * The ceiling saved in {@code dir}, else measured now by {@code benchWithCeiling} (a {@code stoker bench
     * --ceiling} run of the start config; its JSON) and saved; empty, with a line saying why, when that run failed
     * or measured none.
     */
    public static Optional<Ceiling> measureOrRead(Callable<JsonNode> benchWithCeiling, Path dir, PrintWriter w)
            throws IOException {
        Path file = dir.resolve(FILE);
        if (Files.exists(file)) {
            return Optional.of(fromSaved(JSON.readTree(file.toFile()), file).asCeiling());
        }
        w.println("measuring the machine's decode ceiling: the start config's clips decoded on every core at once...");
        w.flush();
        JsonNode bench;
        try {
            bench = benchWithCeiling.call();
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
        Ceiling ceiling = fromSaved(saved, file).asCeiling();
        w.printf(Locale.ROOT, "decode ceiling: %.1f samples/s (%s); the start config ran at %.1f samples/s beside it, %.2f of it%n",
                ceiling.samplesPerSecond(), ceiling.how(), saved.path("start_samples_per_second").asDouble(),
                ceiling.shareOf(saved.path("start_samples_per_second").asDouble()));
        w.flush();
        return Optional.of(ceiling);
    }

    private static DecodeCeiling fromSaved(JsonNode saved, Path file) {
        double sps = saved.path("samples_per_second").asDouble();
        if (!(sps > 0)) {
            throw new IllegalStateException(file + ": no samples_per_second (delete it to measure the ceiling again)");
        }
        return new DecodeCeiling(saved.path("threads").asInt(), saved.path("single_clips_per_second").asDouble(), sps,
                saved.path("machine_ceiling").asDouble());
    }
}
