package dev.stoker.store.remote;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;

/**
 * A TCP proxy in front of an HTTP server, for fault tests: every {@code n}th answer (counted over all connections)
 * that is longer than {@code cutAfterBytes} is cut there, in the middle of its body, and the connection dropped on
 * both sides, as a network that fails does. Requests pass untouched. (HTTP/1.1 clients send a request, then read
 * its answer: bytes from the client start a new answer.)
 */
final class DroppingProxy implements AutoCloseable {
    private final ServerSocket server;
    private final String upstreamHost;
    private final int upstreamPort;
    private final int dropEvery;
    private final long cutAfterBytes;
    private final AtomicInteger answers = new AtomicInteger();
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile boolean dropAll;
    /** Answers cut so far. */
    final AtomicInteger drops = new AtomicInteger();

    /** In front of {@code upstream} (http://host:port). */
    DroppingProxy(URI upstream, int dropEvery, long cutAfterBytes) throws IOException {
        this.upstreamHost = upstream.getHost();
        this.upstreamPort = upstream.getPort();
        this.dropEvery = dropEvery;
        this.cutAfterBytes = cutAfterBytes;
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("proxy-accept").start(this::accept);
    }

    /** From now on, every answer longer than {@code cutAfterBytes} is cut. */
    DroppingProxy dropAll() {
        dropAll = true;
        return this;
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** One proxied connection's state: the answer under way, and whether it is to be cut. */
    private final class Connection {
        final Socket client;
        final Socket target;
        volatile boolean answering = true; // so the first request bytes start an answer
        volatile long answerBytes;
        volatile boolean cut;

        Connection(Socket client, Socket target) {
            this.client = client;
            this.target = target;
        }

        /** Client to server: passes every byte; the first bytes after an answer start the next one. */
        void requests() {
            relay(client, target, n -> {
                if (answering) {
                    answering = false;
                    answerBytes = 0;
                    cut = dropAll || answers.incrementAndGet() % dropEvery == 0;
                }
                return n;
            });
        }

        /** Server to client: cuts an answer to be cut at {@code cutAfterBytes}, closing both ends mid-answer. */
        void answers() {
            relay(target, client, n -> {
                answering = true;
                int allowed = cut ? (int) Math.max(0, Math.min(n, cutAfterBytes - answerBytes)) : n;
                answerBytes += allowed;
                return allowed;
            });
        }

        /** Copies {@code from} to {@code to} until either side goes away or a chunk is let through only in part. */
        private void relay(Socket from, Socket to, IntUnaryOperator allowedOfChunk) {
            byte[] buffer = new byte[8192];
            try (client; target) {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    int allowed = allowedOfChunk.applyAsInt(n);
                    out.write(buffer, 0, allowed);
                    out.flush();
                    if (allowed < n) {
                        drops.incrementAndGet();
                        return;
                    }
                }
            } catch (IOException e) {
                // the other side went away
            }
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket target = new Socket(upstreamHost, upstreamPort);
                open.add(client);
                open.add(target);
                Connection c = new Connection(client, target);
                Thread.ofVirtual().start(c::requests);
                Thread.ofVirtual().start(c::answers);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : open) {
            s.close();
        }
    }
}
