package dev.stoker.store.shard;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.stoker.store.IngestOptions;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * {@code stoker-shards.json}: the ingest's table of contents, written last. Lists the shards in source
 * order, every stored sample (where it lies, its label, frames, rate, size and source) and every source
 * that failed. Holds no timestamps, so equal ingests write equal bytes.
 */
public record Manifest(int formatVersion, IngestOptions.Format format, IngestOptions options, List<String> classNames,
                       int sourceCount, int sampleCount, int failedCount, long payloadBytes,
                       List<ShardFile.Summary> shards, List<SampleRow> samples, List<FailedSource> failed) {

    static final ObjectMapper JSON = new ObjectMapper()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * A stored sample: shard (index into {@code shards}) and record, and what it is. {@code text}: the sample's text in
     * the source dataset (a caption), null when it has none (and then not written, so that manifests of datasets
     * without texts are as before).
     */
    public record SampleRow(int shard, int record, int sourceIndex, int label, int frames, double fps,
                            double durationSeconds, int width, int height, long payloadBytes, String source,
                            @JsonInclude(JsonInclude.Include.NON_NULL) String text) {
    }

    /** A source that could not be ingested. */
    public record FailedSource(int sourceIndex, String source, String reason, String message, String shard, int record) {
    }

    /** What every shard's header holds. */
    public record Header(int formatVersion, IngestOptions.Format format, IngestOptions options) {
        public String toJson() {
            try {
                return new ObjectMapper().writeValueAsString(this);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        public static Header parse(String json) throws IOException {
            return JSON.readValue(json, Header.class);
        }
    }

    public static Manifest read(Path file) throws IOException {
        try {
            return JSON.readValue(Files.readString(file, StandardCharsets.UTF_8), Manifest.class);
        } catch (JacksonException | CharacterCodingException e) {   // the file system's own exceptions name the file
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    /** A manifest from its bytes (one downloaded from object storage). */
    public static Manifest parse(byte[] json) throws IOException {
        return JSON.readValue(json, Manifest.class);
    }

    /** The bytes {@link #write} writes. */
    public byte[] toBytes() throws IOException {
        return (JSON.writeValueAsString(this) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /** Writes atomically (temporary file, then rename). */
    public void write(Path file) throws IOException {
        Path temp = file.resolveSibling("." + file.getFileName() + ".tmp");
        Files.writeString(temp, JSON.writeValueAsString(this) + "\n", StandardCharsets.UTF_8);
        try {
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
