package dev.stoker.observe;

import dev.stoker.observe.internal.StatsMessage;
import dev.stoker.observe.internal.StatsSubscriber;
import dev.stoker.pipeline.Pipeline;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Publishes a running pipeline's stats over TCP, so that {@code stoker monitor} (or any reader of
 * {@link StatsSubscriber}) can watch a job from another process: every period, one
 * {@link StatsMessage} line of JSON to every connected client.
 *
 * <ul>
 *   <li><b>Opt-in and cheap when nobody listens:</b> without a client, a tick takes no snapshot and
 *       serialises nothing ({@link #encodedMessages()} stays 0).</li>
 *   <li><b>Never blocks the pipeline:</b> the pipeline does not know it is watched; the publisher reads
 *       {@link Pipeline#stats()} on its own thread. Each client has its own writer thread and a bounded
 *       buffer of {@value #CLIENT_BUFFER_MESSAGES} lines; a client that stalls loses its oldest lines
 *       ({@link #droppedMessages()}), one that disconnects is dropped.</li>
 *   <li>Bind it to a loopback address: the stream carries stage names and counts, nothing else, and
 *       there is no authentication.</li>
 * </ul>
 *
 * <pre>{@code
 * try (Pipeline<Batch> p = ...;
 *      StatsPublisher pub = StatsPublisher.start(p, new InetSocketAddress("127.0.0.1", 7077), Duration.ofMillis(500))) {
 *     for (Batch b : p) train(b);      // meanwhile: stoker monitor localhost:7077
 * }
 * }</pre>
 */
public final class StatsPublisher implements AutoCloseable {
    /** Lines a client may have waiting before its oldest are dropped. */
    public static final int CLIENT_BUFFER_MESSAGES = 16;
    /** The socket send buffer per client: with the line buffer, what a stalled client can hold up. */
    private static final int SOCKET_SEND_BUFFER_BYTES = 64 * 1024;
    private static final AtomicInteger PUBLISHERS = new AtomicInteger();

    private final Pipeline<?> pipeline;
    private final long periodNanos;
    private final ServerSocketChannel server;
    private final InetSocketAddress address;
    private final List<Client> clients = new CopyOnWriteArrayList<>();
    private final AtomicLong encodedMessages = new AtomicLong();
    private final AtomicLong droppedMessages = new AtomicLong();
    private final AtomicInteger clientIds = new AtomicInteger();
    private final String threadPrefix;
    private final Thread acceptor;
    private final Thread ticker;
    private volatile boolean closed;

    private StatsPublisher(Pipeline<?> pipeline, InetSocketAddress bind, Duration period) throws IOException {
        this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
        this.periodNanos = period.toNanos();
        if (periodNanos <= 0) {
            throw new IllegalArgumentException("period: " + period + " (expected: > 0)");
        }
        this.server = ServerSocketChannel.open();
        try {
            server.bind(Objects.requireNonNull(bind, "bind"));
        } catch (IOException e) {
            server.close();
            throw new IOException("cannot publish stats on " + bind + ": " + e.getMessage(), e);
        }
        this.address = (InetSocketAddress) server.getLocalAddress();
        this.threadPrefix = "stoker-stats-publisher-" + PUBLISHERS.incrementAndGet();
        this.acceptor = Thread.ofPlatform().name(threadPrefix + "-accept").daemon(true).unstarted(this::acceptLoop);
        this.ticker = Thread.ofPlatform().name(threadPrefix).daemon(true).unstarted(this::tickLoop);
    }

    /**
     * Starts publishing {@code pipeline}'s stats every {@code period} to clients that connect to
     * {@code bind} (port 0: any free port; {@link #address()} says which).
     *
     * @throws IOException when the address cannot be bound (the port in use, say)
     */
    public static StatsPublisher start(Pipeline<?> pipeline, InetSocketAddress bind, Duration period) throws IOException {
        StatsPublisher publisher = new StatsPublisher(pipeline, bind, period);
        publisher.acceptor.start();
        publisher.ticker.start();
        return publisher;
    }

    /** The bound address (with the actual port when 0 was asked). */
    public InetSocketAddress address() { return address; }

    /** Clients connected now. */
    public int clientCount() { return clients.size(); }

    /** Snapshots serialised so far: one per tick with at least one client, none without. */
    public long encodedMessages() { return encodedMessages.get(); }

    /** Lines dropped for clients that did not read fast enough, all clients together. */
    public long droppedMessages() { return droppedMessages.get(); }

    private void acceptLoop() {
        while (!closed) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));   // e.g. out of file descriptors
                continue;
            }
            try {
                channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_SEND_BUFFER_BYTES);
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                channel.shutdownInput();   // clients only read
            } catch (IOException e) {
                closeQuietly(channel);
                continue;
            }
            Client client = new Client(channel, threadPrefix + "-client-" + clientIds.incrementAndGet());
            clients.add(client);
            if (closed) {   // close() may have missed it
                client.close();
                return;
            }
            client.writer.start();
        }
    }

    private void tickLoop() {
        while (!closed) {
            LockSupport.parkNanos(periodNanos);
            if (closed || Thread.interrupted()) {
                return;
            }
            if (clients.isEmpty()) {
                continue;   // nobody listens: no snapshot, no serialisation
            }
            byte[] line;
            try {
                line = (StatsMessage.of(pipeline).toJsonLine() + "\n").getBytes(StandardCharsets.UTF_8);
            } catch (RuntimeException e) {
                continue;   // a snapshot that cannot be taken (pipeline closing) is skipped, never thrown at it
            }
            encodedMessages.incrementAndGet();
            for (Client c : clients) {
                c.offer(line);
            }
        }
    }

    /** Stops accepting, disconnects every client and joins the publisher's threads. */
    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        ticker.interrupt();
        for (Client c : clients) {
            c.close();
        }
        join(acceptor);
        join(ticker);
        for (Client c : clients) {
            join(c.writer);
        }
        clients.clear();
    }

    private static void join(Thread t) {
        if (t.getState() == Thread.State.NEW) {
            return;
        }
        try {
            t.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            // closing: nothing to tell anyone
        }
    }

    /** One connected reader: a bounded line buffer (drop oldest) drained by its own writer thread. */
    private final class Client {
        final SocketChannel channel;
        final LinkedBlockingDeque<byte[]> pending = new LinkedBlockingDeque<>(CLIENT_BUFFER_MESSAGES);
        final Thread writer;

        Client(SocketChannel channel, String threadName) {
            this.channel = channel;
            this.writer = Thread.ofPlatform().name(threadName).daemon(true).unstarted(this::writeLoop);
        }

        void offer(byte[] line) {
            while (!pending.offerLast(line)) {
                if (pending.pollFirst() != null) {
                    droppedMessages.incrementAndGet();
                }
            }
        }

        private void writeLoop() {
            try {
                while (!closed) {
                    ByteBuffer buffer = ByteBuffer.wrap(pending.takeFirst());
                    while (buffer.hasRemaining()) {
                        channel.write(buffer);   // blocks while this client stalls; only this thread waits
                    }
                }
            } catch (InterruptedException | IOException e) {
                // closed, or the client went away
            } finally {
                clients.remove(this);
                closeQuietly(channel);
            }
        }

        void close() {
            closeQuietly(channel);   // unblocks a write in progress
            writer.interrupt();      // unblocks a wait for the next line
        }
    }
}
