package dev.stoker.serve.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The session's control channel: one JSON object a line each way. Messages out go from the loop (batches) and
 * from the request reader (replies), so writes are serialised here; a message is flushed as it is written,
 * since the consumer waits on it.
 */
public final class ControlChannel {
    public static final ObjectMapper JSON = new ObjectMapper();

    private final BufferedReader in;
    private final OutputStream out;

    public ControlChannel(InputStream in, OutputStream out) {
        this.in = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        this.out = out;
    }

    /** A new message of {@code type}. */
    public static ObjectNode message(String type) {
        ObjectNode node = JSON.createObjectNode();
        node.put("type", type);
        return node;
    }

    /** Writes one message; false if the consumer has gone (the pipe is closed). */
    public synchronized boolean send(ObjectNode message) {
        try {
            out.write(JSON.writeValueAsBytes(message));
            out.write('\n');
            out.flush();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The next request, or null at the end of the input (the consumer closed it, or died). */
    public JsonNode nextRequest() {
        try {
            String line;
            do {
                line = in.readLine();
            } while (line != null && line.isBlank());
            return line == null ? null : JSON.readTree(line);
        } catch (IOException e) {
            if (e instanceof com.fasterxml.jackson.core.JsonProcessingException bad) {
                throw new IllegalArgumentException("control channel: not a JSON request: " + bad.getOriginalMessage(), bad);
            }
            throw new UncheckedIOException("control channel: cannot read", e);
        }
    }
}
