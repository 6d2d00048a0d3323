package dev.stoker.observe.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;

/**
 * Serves the dashboard: the page and Chart.js from the classpath, and the stats as server-sent events
 * ({@code /events}: one {@code data:} line of {@link StatsMessage} JSON per
 * {@link #publish}). The JDK's HTTP server; each browser tab holds one virtual thread. A tab that stops
 * reading loses its oldest messages, never blocks {@link #publish}. The server keeps the run's messages so far
 * (a {@link ThinnedSeries}: at most {@value #HISTORY_MESSAGES}, the whole run at a resolution that halves as it
 * grows), so that a page opened mid-run draws the run from its start, not only what came after it loaded.
 *
 * <ul>
 *   <li>{@code /} the page; {@code /dashboard.js}, {@code /dashboard.css}, {@code /vendor/chart.umd.min.js}</li>
 *   <li>{@code /events} server-sent events; a new tab first gets one {@code history} event, the JSON array of the
 *       messages kept so far, the newest last, then every message as it is published</li>
 *   <li>{@code /stats} the newest message as JSON; {@code /info} {@code {"title": ...}}</li>
 * </ul>
 */
public final class DashboardServer implements AutoCloseable {
    public static final int DEFAULT_PORT = 8077;
    private static final int TAB_BUFFER_MESSAGES = 32;
    /** Messages kept for a page opened mid-run: at 2 a second, 10 minutes at full resolution, then thinned. */
    static final int HISTORY_MESSAGES = 1200;
    @SuppressWarnings("StringOperationCanBeSimplified")
    private static final String END = new String("end of stream");   // compared by identity
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final ExecutorService executor;
    private final Map<String, byte[]> files;
    private final byte[] info;
    private final List<Tab> tabs = new CopyOnWriteArrayList<>();
    private final ThinnedSeries<String> history = new ThinnedSeries<>(HISTORY_MESSAGES);
    private volatile String latest;
    private volatile boolean closed;

    private DashboardServer(HttpServer server, String title) throws IOException {
        this.server = server;
        this.executor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("stoker-dashboard-http-", 0).factory());
        this.files = Map.of(
                "/", DashboardAssets.bytes(DashboardAssets.PAGE),
                "/" + DashboardAssets.SCRIPT, DashboardAssets.bytes(DashboardAssets.SCRIPT),
                "/" + DashboardAssets.STYLES, DashboardAssets.bytes(DashboardAssets.STYLES),
                "/" + DashboardAssets.CHART_JS, DashboardAssets.bytes(DashboardAssets.CHART_JS));
        this.info = JSON.writeValueAsBytes(Map.of("title", title));
        server.setExecutor(executor);
        server.createContext("/", this::handle);
    }

    /**
     * Starts serving on {@code bind} (port 0: any free port; {@link #url()} says which).
     *
     * @param title what the page calls the job, after "stoker": e.g. {@code bench}
     * @throws IOException when the port cannot be bound; the message says which and what to do
     */
    public static DashboardServer start(InetSocketAddress bind, String title) throws IOException {
        HttpServer http;
        try {
            http = HttpServer.create(bind, 16);
        } catch (BindException e) {
            throw new IOException("cannot serve the dashboard on port " + bind.getPort() + " (" + e.getMessage()
                    + "); pick another port, or 0 for any free one", e);
        }
        DashboardServer dashboard = new DashboardServer(http, title);
        http.start();
        return dashboard;
    }

    /** Where a browser finds the page. */
    public URI url() {
        InetSocketAddress a = server.getAddress();
        String host = a.getAddress().isLoopbackAddress() || a.getAddress().isAnyLocalAddress() ? "localhost" : a.getHostString();
        return URI.create("http://" + host + ":" + a.getPort() + "/");
    }

    /** Sends one stats message (one line of JSON) to every open tab and keeps it for tabs that open later. */
    public void publish(String jsonLine) {
        if (jsonLine.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("jsonLine: a line break inside (expected: one line of JSON)");
        }
        synchronized (history) {   // a tab that opens now gets this message either in its history or after it
            latest = jsonLine;
            history.add(jsonLine, false);
            for (Tab t : tabs) {
                t.offer(jsonLine);
            }
        }
    }

    /** Tabs connected to {@code /events} now. */
    int tabCount() { return tabs.size(); }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                respond(exchange, 405, "text/plain; charset=utf-8", "GET only\n".getBytes(StandardCharsets.UTF_8));
                return;
            }
            String path = exchange.getRequestURI().getPath();
            switch (path) {
                case "/events" -> streamEvents(exchange);
                case "/stats" -> {
                    String now = latest;
                    respond(exchange, now == null ? 503 : 200, "application/json",
                            (now == null ? "{\"error\":\"no stats yet\"}" : now).getBytes(StandardCharsets.UTF_8));
                }
                case "/info" -> respond(exchange, 200, "application/json", info);
                default -> {
                    byte[] file = files.get(path.equals("/index.html") ? "/" : path);
                    if (file == null) {
                        respond(exchange, 404, "text/plain; charset=utf-8", ("not found: " + path + "\n").getBytes(StandardCharsets.UTF_8));
                    } else {
                        respond(exchange, 200, DashboardAssets.contentType(path.equals("/") ? DashboardAssets.PAGE : path), file);
                    }
                }
            }
        }
    }

    private static void respond(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(status, head ? -1 : body.length);
        if (!head) {
            exchange.getResponseBody().write(body);
        }
    }

    private void streamEvents(HttpExchange exchange) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(200, 0);
        OutputStream body = exchange.getResponseBody();
        Tab tab = new Tab();
        List<String> past;
        synchronized (history) {
            past = new ArrayList<>(history.items());
            String now = latest;
            if (now != null && (past.isEmpty() || past.getLast() != now)) {   // identity: the stride passed it over
                past.add(now);
            }
            tabs.add(tab);
        }
        try {
            body.write("retry: 1000\n\n".getBytes(StandardCharsets.UTF_8));
            if (!past.isEmpty()) {
                body.write(("event: history\ndata: [" + String.join(",", past) + "]\n\n").getBytes(StandardCharsets.UTF_8));
            }
            body.flush();
            while (!closed) {
                String line = tab.pending.pollFirst(15, TimeUnit.SECONDS);
                if (line == END) {   // identity: the close marker
                    break;
                }
                body.write((line == null ? ": keep-alive\n\n" : "data: " + line + "\n\n").getBytes(StandardCharsets.UTF_8));
                body.flush();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the tab went away
        } finally {
            tabs.remove(tab);
        }
    }

    /** Stops serving: ends every event stream, closes the port and waits for the handlers. */
    @Override
    public void close() {
        closed = true;
        for (Tab t : tabs) {
            t.offer(END);
        }
        server.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One browser tab's event stream: a bounded queue, oldest dropped first. */
    private static final class Tab {
        final LinkedBlockingDeque<String> pending = new LinkedBlockingDeque<>(TAB_BUFFER_MESSAGES);

        void offer(String line) {
            while (!pending.offerLast(line)) {
                pending.pollFirst();
            }
        }
    }
}
