package dev.stoker.store.remote;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real HTTP server (the JDK's) over a folder, for tests: answers {@code Range} with 206 or, with ranges off, the
 * whole body with 200 as {@code jwebserver} does; and injects faults on request: every {@code n}th request a 503,
 * a body cut in half after announcing its full length (the connection then closes), or a short body announced as
 * short (a well-formed answer with fewer bytes than the range asked for). Logs every GET in arrival order, and can
 * answer slowly.
 */
final class FolderHttpServer implements AutoCloseable {
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d+)");

    private final HttpServer server;
    private final ExecutorService workers = Executors.newFixedThreadPool(4);
    private final Path root;
    private final boolean ranges;
    private volatile int unavailableEvery;
    private volatile int truncateEvery;
    private volatile int shortEvery;
    private volatile long delayMillis;
    /** Every GET as {@code path bytes=a-b} (or {@code path whole}), in arrival order. */
    final java.util.List<String> log = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    private final AtomicInteger requests = new AtomicInteger();
    final AtomicInteger faults = new AtomicInteger();

    FolderHttpServer(Path root, boolean ranges) throws IOException {
        this.root = root;
        this.ranges = ranges;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(workers);
        server.start();
    }

    /** Every {@code n}th request answered 503 (0: never). */
    FolderHttpServer unavailableEvery(int n) {
        unavailableEvery = n;
        return this;
    }

    /** Every {@code n}th request's body cut in half (0: never). */
    FolderHttpServer truncateEvery(int n) {
        truncateEvery = n;
        return this;
    }

    /** Every {@code n}th ranged answer a 206 with half the bytes asked for, its headers saying so (0: never). */
    FolderHttpServer shortEvery(int n) {
        shortEvery = n;
        return this;
    }

    /** Waits {@code millis} before answering each GET. */
    FolderHttpServer delayMillis(long millis) {
        delayMillis = millis;
        return this;
    }

    /** GETs answered (or being answered) so far. */
    int gets() {
        return log.size();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            int n = requests.incrementAndGet();
            Path file = root.resolve(exchange.getRequestURI().getPath().substring(1)).normalize();
            if (!file.startsWith(root) || !Files.isRegularFile(file)) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            if (unavailableEvery > 0 && n % unavailableEvery == 0) {
                faults.incrementAndGet();
                exchange.sendResponseHeaders(503, -1);
                return;
            }
            byte[] bytes = Files.readAllBytes(file);
            if (exchange.getRequestMethod().equals("GET")) {
                String asked = exchange.getRequestHeaders().getFirst("Range");
                log.add(exchange.getRequestURI().getPath().substring(1) + " " + (asked == null ? "whole" : asked));
                if (delayMillis > 0) {
                    try {
                        Thread.sleep(delayMillis);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
            if (exchange.getRequestMethod().equals("HEAD")) {
                exchange.getResponseHeaders().set("Content-Length", Long.toString(bytes.length));
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            int from = 0;
            int to = bytes.length;
            int status = 200;
            String range = exchange.getRequestHeaders().getFirst("Range");
            Matcher m = range == null ? null : RANGE.matcher(range);
            if (ranges && m != null && m.matches()) {
                from = Integer.parseInt(m.group(1));
                to = Math.min(bytes.length, Integer.parseInt(m.group(2)) + 1);
                status = 206;
                if (shortEvery > 0 && n % shortEvery == 0 && to - from > 1 && !(truncateEvery > 0 && n % truncateEvery == 0)) {
                    faults.incrementAndGet();
                    to = from + (to - from) / 2;
                }
                exchange.getResponseHeaders().set("Content-Range", "bytes " + from + "-" + (to - 1) + "/" + bytes.length);
            }
            exchange.sendResponseHeaders(status, to - from);
            OutputStream body = exchange.getResponseBody();
            if (truncateEvery > 0 && n % truncateEvery == 0 && to - from > 1) {
                faults.incrementAndGet();
                body.write(bytes, from, (to - from) / 2);
                body.flush();
                return; // closing with fewer bytes than announced drops the connection

            }
            body.write(bytes, from, to - from);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        workers.shutdownNow();
    }
}
