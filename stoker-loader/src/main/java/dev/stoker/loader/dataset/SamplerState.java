package dev.stoker.loader.dataset;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.stoker.loader.dataset.internal.DatasetFingerprint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where a rank stands in its epoch sequence, with everything the sequence is a function of: an
 * {@link EpochSampler} made from it ({@link EpochSampler#resume}) continues with exactly the samples
 * and draw seeds the uninterrupted run would have produced next. Small, immutable, JSON in and out.
 *
 * @param version        the state format, {@link #VERSION}
 * @param seed           the sampler's seed
 * @param shuffle        whether epochs are shuffled
 * @param windowGroups   the shuffle window in groups ({@code 0}: all)
 * @param rank           this rank
 * @param worldSize      ranks splitting each epoch
 * @param tail           how the uneven remainder was handled
 * @param dataset        the fingerprint of the dataset the state belongs to
 * @param epoch          the epoch to continue in
 * @param position       the next position in this rank's sequence for {@code epoch} (samples before it
 *                       were delivered)
 * @param clipsDelivered clips of the sample at {@code position} already delivered, where a loader emits
 *                       several clips per sample and a batch ended among them (0 otherwise)
 */
public record SamplerState(int version, long seed, boolean shuffle, int windowGroups, int rank, int worldSize,
                           SamplerOptions.Tail tail, DatasetFingerprint dataset, int epoch, int position,
                           int clipsDelivered) {

    /** The current state format. */
    public static final int VERSION = 1;

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            // A document is one value, each key once: text after it, or a key given twice, is a mistake to name.
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    public SamplerState {
        if (version != VERSION) {
            throw new IllegalArgumentException("sampler state version: " + version + " (expected: " + VERSION + ")");
        }
        Objects.requireNonNull(tail, "tail");
        Objects.requireNonNull(dataset, "dataset");
        new SamplerOptions(windowGroups, rank, worldSize, tail); // validates
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch: " + epoch + " (expected: 0+)");
        }
        if (position < 0) {
            throw new IllegalArgumentException("position: " + position + " (expected: 0+)");
        }
        if (clipsDelivered < 0) {
            throw new IllegalArgumentException("clipsDelivered: " + clipsDelivered + " (expected: 0+)");
        }
    }

    /** The window, rank and tail options the state was made with. */
    public SamplerOptions options() {
        return new SamplerOptions(windowGroups, rank, worldSize, tail);
    }

    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write sampler state as JSON", e);
        }
    }

    public static SamplerState fromJson(String json) {
        try {
            return JSON.readValue(json, SamplerState.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("sampler state: not a valid state JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** Writes the JSON atomically (a temporary file moved over {@code file}): a kill never leaves half a state. */
    public void write(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
        try {
            Files.writeString(tmp, toJson());
            Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    public static SamplerState read(Path file) throws IOException {
        try {
            return fromJson(Files.readString(file));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
