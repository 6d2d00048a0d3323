package dev.stoker.serve.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.gpu.DeviceBatch;
import dev.stoker.gpu.DeviceBatchSharing;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.PipelineStats;
import dev.stoker.pipeline.ProcessStats;
import java.time.Instant;
import java.util.List;

/** The messages a session sends (see docs/torch.md for the protocol). */
public final class Messages {
    private Messages() {
    }

    /** One batch of {@code epoch}: where it lies in the file, its tensor shape, labels and per-clip metadata, and the state after it. */
    public static ObjectNode batch(long id, int epoch, int slot, long offset, ClipBatch batch, SamplerState after) {
        ObjectNode m = ControlChannel.message("batch");
        m.put("id", id).put("slot", slot).put("offset", offset).put("nbytes", batch.data().byteSize())
                .put("layout", batch.layout().name()).put("epoch", epoch);
        ArrayNode shape = m.putArray("shape");
        for (long d : batch.shape()) {
            shape.add(d);
        }
        clips(m, batch.clips());
        m.set("state", state(after));
        // Wall-clock micros (comparable across processes): the consumer's hand-over time starts here.
        Instant now = Instant.now();
        m.put("sent_us", now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000);
        return m;
    }

    /**
     * A device batch's message: as a host batch's, with the slot being a device buffer shared by CUDA IPC ({@code ipc}:
     * {@code memory}, the slot's handle, the first time the slot is used) and the path each clip was decoded by
     * ({@code decoded_by}: nvdec, ffmpeg_nvdec, cpu, cpu_fallback).
     */
    public static ObjectNode deviceBatch(long id, int epoch, DeviceBatch batch, DeviceBatchSharing.Shared shared,
                                         SamplerState after) {
        ObjectNode m = ControlChannel.message("batch");
        m.put("id", id).put("slot", shared.slot()).put("offset", 0).put("nbytes", batch.byteSize())
                .put("layout", batch.layout().name()).put("epoch", epoch);
        ArrayNode shape = m.putArray("shape");
        for (long d : batch.shape()) {
            shape.add(d);
        }
        clips(m, batch.clips());
        ObjectNode ipc = m.putObject("ipc");
        if (shared.memoryHandle() != null) {
            ipc.put("memory", shared.memoryHandle());
        }
        ArrayNode paths = m.putArray("decoded_by");
        batch.decodePaths().forEach(p -> paths.add(p.name().toLowerCase(java.util.Locale.ROOT)));
        m.set("state", state(after));
        Instant now = Instant.now();
        m.put("sent_us", now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000);
        return m;
    }

    private static void clips(ObjectNode m, java.util.List<ClipInfo> clips) {
        ArrayNode labels = m.putArray("labels");
        ArrayNode paths = m.putArray("paths");
        ArrayNode starts = m.putArray("start_seconds");
        ArrayNode frames = m.putArray("frame_seconds");
        ArrayNode texts = m.putArray("texts");
        for (ClipInfo clip : clips) {
            labels.add(clip.label());
            paths.add(clip.path().toString());
            if (clip.text().isPresent()) {
                texts.add(clip.text().get());
            } else {
                texts.addNull();
            }
            double[] times = clip.frameTimestampsSeconds();
            starts.add(times.length > 0 ? times[0] : Double.NaN);
            ArrayNode t = frames.addArray();
            for (double s : times) {
                t.add(s);
            }
        }
    }

    public static JsonNode state(SamplerState state) {
        return reread("sampler state", state.toJson());
    }

    public static ArrayNode failures(List<Failure> failures) {
        ArrayNode list = ControlChannel.JSON.createArrayNode();
        for (Failure f : failures) {
            list.addObject().put("path", f.item()).put("stage", f.stage()).put("reason", f.reason())
                    .put("message", String.valueOf(f.cause().getMessage()));
        }
        return list;
    }

    public static JsonNode stats(PipelineStats stats) {
        return reread("pipeline stats", stats.toJson());
    }

    /** This process's memory now (heap, RSS, the memory account by kind), as the stats stream sends it. */
    public static JsonNode process(ProcessStats process) {
        return ControlChannel.JSON.valueToTree(process);
    }

    /** {@code json}, which {@code what} wrote itself, as a tree to embed in a message. */
    private static JsonNode reread(String what, String json) {
        try {
            return ControlChannel.JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(what + ": cannot re-read its own JSON", e);
        }
    }
}
