package dev.stoker.tune.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.loader.LoaderOptions;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The offline tuner's files in its folder: {@code experiments.jsonl}, one trial a line, appended as each ends (a
 * line cut short by a crash ends the journal, and the search continues from there), and {@code best.json}, the
 * best config so far. Without a folder it keeps nothing.
 */
public final class TunerJournal {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String EXPERIMENTS = "experiments.jsonl";

    private final Path dir;   // null: no journal

    public TunerJournal(Path dir) {
        this.dir = dir;
    }

    /** Reads the trials of an earlier search; empty when there is none. */
    public static List<Experiment> read(Path dir) {
        Path file = dir.resolve(EXPERIMENTS);
        List<Experiment> list = new ArrayList<>();
        if (!Files.exists(file)) {
            return list;
        }
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                    try {
                        list.add(JSON.readValue(line, Experiment.class));
                    } catch (IOException e) {
                        break;   // a line cut short by a crash ends the journal
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return list;
    }

    /** The trials so far (none without a folder), the folder made if it was not there. */
    public List<Experiment> open() {
        if (dir == null) {
            return new ArrayList<>();
        }
        List<Experiment> history = read(dir);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir + ": " + e.getMessage(), e);
        }
        return history;
    }

    public void append(Experiment e) {
        if (dir == null) {
            return;
        }
        Path file = dir.resolve(EXPERIMENTS);
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND)) {
            w.write(JSON.writeValueAsString(e));
            w.newLine();
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot append to " + file + ": " + ex.getMessage(), ex);
        }
    }

    /** Writes the whole history again (a trial already written was corrected). */
    public void rewrite(List<Experiment> history) {
        if (dir == null) {
            return;
        }
        Path file = dir.resolve(EXPERIMENTS);
        StringBuilder text = new StringBuilder();
        try {
            for (Experiment e : history) {
                text.append(JSON.writeValueAsString(e)).append('\n');
            }
            Files.writeString(file, text);
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot write " + file + ": " + ex.getMessage(), ex);
        }
    }

    /** Rewrites {@code best.json}: the options document of the best trial, what {@code stoker bench --config} reads. */
    public void writeBest(LoaderOptions options) {
        if (dir != null) {
            Path file = dir.resolve("best.json");
            try {
                Files.writeString(file, options.toJson() + "\n");
            } catch (IOException ex) {
                throw new UncheckedIOException("cannot write " + file + ": " + ex.getMessage(), ex);
            }
        }
    }

    /**
     * How {@code start} differs from the start options of the search in {@code history}, the settings at
     * {@code knobs} (the paths the search moves) left out of both: a search continued from other start options
     * would compare trials of two workloads (16 frames against 4, say) as if one config were faster. One
     * {@code path: recorded → now} entry per setting, in path order; empty when they agree, or when the history has
     * no start trial that recorded its options (a journal of an older version).
     */
    public static List<String> startDifferences(List<Experiment> history, Collection<String> knobs, LoaderOptions start) {
        JsonNode recorded = history.stream().filter(e -> e.phase() == TrialPhase.START).map(Experiment::options)
                .filter(Objects::nonNull).findFirst().orElse(null);
        if (recorded == null) {
            return List.of();
        }
        // The knobs of either search's space: one the continuation's --space left out is still no part of the workload.
        Set<String> moved = new HashSet<>(knobs);
        history.stream().filter(e -> e.phase() == TrialPhase.START && e.point() != null).findFirst()
                .ifPresent(e -> moved.addAll(e.point().keySet()));
        JsonNode thenOptions;
        try {
            // Read by this version, as the start options are: an option it added, or a default it changed, is no
            // difference in the workload an older version recorded.
            thenOptions = tree(LoaderOptions.fromJson(recorded.toString()));
        } catch (IllegalArgumentException e) {
            thenOptions = recorded;
        }
        Map<String, String> then = leaves(withoutKnobs(thenOptions, moved));
        Map<String, String> now = leaves(withoutKnobs(tree(start), moved));
        TreeMap<String, String> all = new TreeMap<>(then);
        now.forEach(all::putIfAbsent);
        List<String> differences = new ArrayList<>();
        for (String path : all.keySet()) {
            String a = then.getOrDefault(path, "unset");
            String b = now.getOrDefault(path, "unset");
            if (!a.equals(b)) {
                differences.add(path + ": " + a + " → " + b);
            }
        }
        return differences;
    }

    /** A copy of {@code options} without the settings at {@code paths}, and without the objects that left empty. */
    private static JsonNode withoutKnobs(JsonNode options, Collection<String> paths) {
        JsonNode copy = options.deepCopy();
        for (String path : paths) {
            String[] keys = path.split("\\.");
            JsonNode parent = copy;
            for (int i = 0; i < keys.length - 1 && parent != null; i++) {
                parent = parent.get(keys[i]);
            }
            if (parent instanceof ObjectNode o) {
                o.remove(keys[keys.length - 1]);
            }
        }
        prune(copy);
        return copy;
    }

    /** Removes the empty objects under {@code node} (a stage whose only setting was a knob's). */
    private static void prune(JsonNode node) {
        if (node instanceof ObjectNode o) {
            List<String> empty = new ArrayList<>();
            o.properties().forEach(p -> {
                prune(p.getValue());
                if (p.getValue().isObject() && p.getValue().isEmpty()) {
                    empty.add(p.getKey());
                }
            });
            o.remove(empty);
        }
    }

    /** Every value of {@code node} by its dotted path ({@code clip.frames} → {@code 16}). */
    private static Map<String, String> leaves(JsonNode node) {
        Map<String, String> out = new TreeMap<>();
        collect("", node, out);
        return out;
    }

    private static void collect(String prefix, JsonNode node, Map<String, String> out) {
        if (node.isObject()) {
            node.properties().forEach(p -> collect(prefix.isEmpty() ? p.getKey() : prefix + "." + p.getKey(), p.getValue(), out));
        } else {
            out.put(prefix, node.isTextual() ? node.asText() : node.toString());
        }
    }

    /** {@code value} as indented JSON. */
    public static String toJson(Object value) {
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An options document as a JSON tree, in its own field names (what {@code stoker bench --config} reads). */
    public static JsonNode tree(LoaderOptions options) {
        try {
            return JSON.readTree(options.toJson());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
