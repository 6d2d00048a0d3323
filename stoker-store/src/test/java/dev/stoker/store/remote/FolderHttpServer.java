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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 * answer slowly, or hold each GET until several are in flight (to see a client's concurrency without timing it).
 */
final class FolderHttpServer implements AutoCloseable {
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d+)");

    private final HttpServer server;
    private final ExecutorService workers = Executors.newFixedThreadPool(4);
    private final Path root;
    private final boolean ranges;
    /** Which request of how many each fault strikes: every {@code n}th; a fault not in it never. */
    private final Map<Fault, Integer> faultEvery = new ConcurrentHashMap<>();
    private volatile long delayMillis;
    private volatile int holdUntil;
    private int inFlight;
    private int mostInFlight;
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

    /** What the server does wrong to a request it was asked to fail ({@link #failEvery}). */
    enum Fault {
        /** Answered 503. */
        UNAVAILABLE,
        /** The body cut in half after its full length was announced (the connection then closes). */
        TRUNCATED,
        /** A ranged answer a 206 with half the bytes asked for, its headers saying so. */
        SHORT
    }

    /** {@code fault} on every {@code n}th request (0: never). */
    FolderHttpServer failEvery(Fault fault, int n) {
        faultEvery.put(fault, n);
        return this;
    }

    /** Whether request {@code n} (counted from 1) is one that {@code fault} strikes. */
    private boolean strikes(Fault fault, int n) {
        int every = faultEvery.getOrDefault(fault, 0);
        return every > 0 && n % every == 0;
    }

    /** Waits {@code millis} before answering each GET. */
    FolderHttpServer delayMillis(long millis) {
        delayMillis = millis;
        return this;
    }

    /**
     * Holds the first ranged GETs (a manifest is read whole) until {@code n} are in flight at once (or 10 s have passed, so that a client one request at a
     * time is slow, not stuck): a client that asks for several at once is then seen to, by {@link #mostInFlight()}. At
     * most 4: the server's threads.
     */
    FolderHttpServer holdUntilInFlight(int n) {
        holdUntil = n;
        return this;
    }

    /** The most GETs that were being answered at once. */
    synchronized int mostInFlight() { return mostInFlight; }

    private synchronized void enter() throws InterruptedException {
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        notifyAll();
        long until = System.nanoTime() + 10_000_000_000L;
        while (mostInFlight < holdUntil && System.nanoTime() < until) {
            wait(Math.max(1, (until - System.nanoTime()) / 1_000_000));
        }
    }

    private synchronized void leave() {
        inFlight--;
    }

    /** GETs answered (or being answered) so far. */
    int gets() { return log.size(); }

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
            if (strikes(Fault.UNAVAILABLE, n)) {
                faults.incrementAndGet();
                exchange.sendResponseHeaders(503, -1);
                return;
            }
            byte[] bytes = Files.readAllBytes(file);
            if (exchange.getRequestMethod().equals("GET")) {
                String asked = exchange.getRequestHeaders().getFirst("Range");
                log.add(exchange.getRequestURI().getPath().substring(1) + " " + (asked == null ? "whole" : asked));
                if (asked != null) {
                    try {
                        enter();
                    } catch (InterruptedException e) {
                        return;
                    } finally {
                        leave();
                    }
                }
                if (delayMillis > 0) {
                    try {
                        Thread.sleep(delayMillis);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
            // As nginx makes its ETag: from the file's size and time, which a rewrite of the same size still changes.
            exchange.getResponseHeaders().set("ETag", "\"" + Long.toHexString(Files.getLastModifiedTime(file).toMillis())
                    + "-" + Long.toHexString(bytes.length) + "\"");
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
                if (strikes(Fault.SHORT, n) && to - from > 1 && !strikes(Fault.TRUNCATED, n)) {
                    faults.incrementAndGet();
                    to = from + (to - from) / 2;
                }
                exchange.getResponseHeaders().set("Content-Range", "bytes " + from + "-" + (to - 1) + "/" + bytes.length);
            }
            exchange.sendResponseHeaders(status, to - from);
            OutputStream body = exchange.getResponseBody();
            if (strikes(Fault.TRUNCATED, n) && to - from > 1) {
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
