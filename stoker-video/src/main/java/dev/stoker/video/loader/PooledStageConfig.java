package dev.stoker.video.loader;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;

/**
 * The config string of a stage that runs in a child JVM with a buffer pool of its own (decode, collate): the
 * loader's options in their JSON form and the pool's budget, which the parent sized.
 */
record PooledStageConfig(LoaderOptions options, long poolBytes) {
    private static final ObjectMapper JSON = new ObjectMapper();

    static String write(LoaderOptions options, long poolBytes) {
        try {
            ObjectNode node = JSON.createObjectNode();
            node.set("options", JSON.readTree(options.toJson()));
            node.put("poolBytes", poolBytes);
            return JSON.writeValueAsString(node);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    static PooledStageConfig read(String config) {
        try {
            JsonNode node = JSON.readTree(config);
            return new PooledStageConfig(LoaderOptions.fromJson(node.get("options").toString()),
                    node.get("poolBytes").asLong());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("pooled stage config: " + e.getOriginalMessage(), e);
        }
    }
}
