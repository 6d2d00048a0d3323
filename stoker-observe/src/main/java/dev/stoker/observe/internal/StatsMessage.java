package dev.stoker.observe.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.observe.StatsPublisher;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineStats;
import dev.stoker.pipeline.ProcessStats;

/**
 * One line of the stats stream ({@link StatsPublisher}, {@link StatsSubscriber}, the dashboard's
 * server-sent events): a JSON object on one line,
 * <pre>{"type":"stats","time_ms":1730000000000,"stats":{...PipelineStats...},"process":{"pid":..,"heap_used_bytes":..,
 * "heap_max_bytes":..,"rss_bytes":..,"offheap_bytes":..}}</pre>
 * {@code stats} is {@link PipelineStats#toJson()}'s object. Readers ignore fields they do not know and
 * lines of another {@code type}, so both can grow.
 *
 * @param timeMillis wall-clock time of the snapshot (epoch milliseconds)
 * @param stats      the pipeline's stats
 * @param process    memory of the process it runs in
 */
public record StatsMessage(long timeMillis, PipelineStats stats, ProcessStats process) {
    /** The {@code type} of a stats line. */
    public static final String TYPE = "stats";

    private static final ObjectMapper JSON = new ObjectMapper()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /** A snapshot of {@code pipeline} and of this process, now. */
    public static StatsMessage of(Pipeline<?> pipeline) {
        return new StatsMessage(System.currentTimeMillis(), pipeline.stats(), ProcessStats.read());
    }

    /** The message as a JSON tree, for callers that add fields of their own before writing it. */
    public ObjectNode toJsonNode() {
        ObjectNode node = JSON.createObjectNode();
        node.put("type", TYPE);
        node.put("time_ms", timeMillis);
        node.set("stats", JSON.valueToTree(stats));
        node.set("process", JSON.valueToTree(process));
        return node;
    }

    /** The message as one line of JSON, without the line break. */
    public String toJsonLine() {
        return toJsonNode().toString();
    }

    /**
     * Parses one line; {@code null} for a line of another type (a newer publisher's).
     *
     * @throws IllegalArgumentException when the line is not a JSON object with a stats snapshot
     */
    public static StatsMessage parse(String line) {
        try {
            JsonNode node = JSON.readTree(line);
            if (node == null || !node.isObject()) {
                throw new IllegalArgumentException("stats line: " + abbreviate(line) + " (expected: a JSON object)");
            }
            if (!TYPE.equals(node.path("type").asText())) {
                return null;
            }
            if (!node.path("stats").isObject()) {
                throw new IllegalArgumentException("stats line: no 'stats' object in " + abbreviate(line));
            }
            PipelineStats stats = JSON.treeToValue(node.get("stats"), PipelineStats.class);
            ProcessStats process = node.path("process").isObject()
                    ? JSON.treeToValue(node.get("process"), ProcessStats.class)
                    : ProcessStats.unknown();
            return new StatsMessage(node.path("time_ms").asLong(), stats, process);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("stats line: " + abbreviate(line) + " (" + e.getOriginalMessage() + ")", e);
        }
    }

    private static String abbreviate(String line) {
        return line.length() <= 80 ? line : line.substring(0, 77) + "...";
    }
}
