package dev.stoker.serve.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A session on a thread, with the consumer's ends of its two streams: what the Python bridge holds. */
record ServeDriver(CompletableFuture<Integer> status, OutputStream requests, BufferedReader messages)
        implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    static ServeDriver start(ServeSettings settings) throws IOException {
        PipedOutputStream requests = new PipedOutputStream();
        PipedInputStream in = new PipedInputStream(requests);
        PipedInputStream fromSession = new PipedInputStream(1 << 20);
        PipedOutputStream out = new PipedOutputStream(fromSession);
        CompletableFuture<Integer> status = CompletableFuture.supplyAsync(() -> ServeSession.run(settings, in, out));
        return new ServeDriver(status, requests,
                new BufferedReader(new InputStreamReader(fromSession, StandardCharsets.UTF_8)));
    }

    JsonNode next() throws IOException {
        return JSON.readTree(messages.readLine());
    }

    void send(String line) throws IOException {
        requests.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        requests.flush();
    }

    void closeRequests() throws IOException {
        requests.close();
    }

    int exitStatus() throws Exception {
        return status.get(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws IOException {
        requests.close();
    }

    /** Every batch of the first epoch, as bytes read from the shared file, each released as the Python side does. */
    static List<byte[]> firstEpoch(ServeSettings settings) throws Exception {
        List<byte[]> served = new ArrayList<>();
        try (ServeDriver session = start(settings)) {
            JsonNode hello = session.next();
            if (!hello.path("type").asText().equals("hello")) {
                throw new AssertionError("expected hello, got " + hello);
            }
            try (FileChannel channel = FileChannel.open(Path.of(hello.path("file").asText()))) {
                for (JsonNode m = session.next(); m.path("type").asText().equals("batch"); m = session.next()) {
                    ByteBuffer bytes = ByteBuffer.allocate(m.path("nbytes").asInt());
                    channel.read(bytes, m.path("offset").asLong());
                    served.add(bytes.array());
                    session.send("{\"op\":\"release\",\"id\":" + m.path("id").asLong() + "}");
                }
            }
            session.closeRequests();
            if (session.exitStatus() != 0) {
                throw new AssertionError("the session exited with " + session.exitStatus());
            }
        }
        return served;
    }
}
