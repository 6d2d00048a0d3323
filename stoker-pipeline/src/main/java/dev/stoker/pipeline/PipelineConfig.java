package dev.stoker.pipeline;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.stoker.pipeline.internal.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every knob of a pipeline that is not code: per-stage settings by stage name, the sink buffer, the
 * pipeline-wide failure budget and the stall watchdog's quiet period. Readable from and writable to JSON;
 * {@link PipelineBuilder#config(PipelineConfig)} lays it over what the code set, and
 * {@link Pipeline#config()} returns the effective config of a running pipeline, every field filled in.
 *
 * <pre>{@code
 * {"sinkCapacity": 5,
 *  "stages": {"parse": {"concurrency": 3, "order": "INPUT"}, "read": {"concurrency": 8}}}
 * }</pre>
 *
 * @param sinkCapacity        batches the sink buffers ahead of the consumer (null: keep)
 * @param failureBudget       pipeline-wide failure budget over source items (null: keep)
 * @param stallTimeoutMillis  quiet period after which the watchdog reports a stall; 0 disables (null: keep)
 * @param stages              per-stage settings by stage name
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PipelineConfig(Integer sinkCapacity, FailureBudget failureBudget, Long stallTimeoutMillis,
                             Map<String, StageConfig> stages) {

    public static final PipelineConfig EMPTY = new PipelineConfig(null, null, null, Map.of());

    public PipelineConfig {
        if (sinkCapacity != null && sinkCapacity < 1) {
            throw new IllegalArgumentException("sinkCapacity: " + sinkCapacity + " (expected: 1+)");
        }
        if (stallTimeoutMillis != null && stallTimeoutMillis < 0) {
            throw new IllegalArgumentException("stallTimeoutMillis: " + stallTimeoutMillis + " (expected: 0+, 0 = off)");
        }
        stages = stages == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(stages));
    }

    /** The settings for {@code stage}, empty if none. */
    public StageConfig stage(String stage) {
        return stages.getOrDefault(stage, StageConfig.EMPTY);
    }

    /** A copy with {@code stage}'s settings replaced. */
    public PipelineConfig withStage(String stage, StageConfig config) {
        Map<String, StageConfig> copy = new LinkedHashMap<>(stages);
        copy.put(stage, config);
        return new PipelineConfig(sinkCapacity, failureBudget, stallTimeoutMillis, copy);
    }

    public PipelineConfig withSinkCapacity(int capacity) {
        return new PipelineConfig(capacity, failureBudget, stallTimeoutMillis, stages);
    }

    /** This config with the non-null settings of {@code other} laid over it, stage by stage. */
    public PipelineConfig overriddenBy(PipelineConfig other) {
        Map<String, StageConfig> merged = new LinkedHashMap<>(stages);
        other.stages.forEach((name, cfg) -> merged.merge(name, cfg, StageConfig::overriddenBy));
        return new PipelineConfig(
                other.sinkCapacity != null ? other.sinkCapacity : sinkCapacity,
                other.failureBudget != null ? other.failureBudget : failureBudget,
                other.stallTimeoutMillis != null ? other.stallTimeoutMillis : stallTimeoutMillis,
                merged);
    }

    public String toJson() {
        return Json.write(this);
    }

    public static PipelineConfig fromJson(String json) {
        return Json.read(json, PipelineConfig.class, "pipeline config");
    }

    public static PipelineConfig read(Path file) {
        try {
            return fromJson(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read pipeline config " + file + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    public void write(Path file) {
        try {
            Files.writeString(file, toJson());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write pipeline config " + file + ": " + e.getMessage(), e);
        }
    }
}
