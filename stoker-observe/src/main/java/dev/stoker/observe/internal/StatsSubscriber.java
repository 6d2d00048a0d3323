package dev.stoker.observe.internal;

import dev.stoker.observe.StatsPublisher;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Reads the stats stream of a {@link StatsPublisher}: one {@link StatsMessage} per {@link #next()}.
 *
 * <pre>{@code
 * try (StatsSubscriber s = StatsSubscriber.connect(new InetSocketAddress("localhost", 7077), Duration.ofSeconds(5))) {
 *     for (StatsMessage m; (m = s.next()) != null; ) System.out.println(m.stats().verdict().line());
 * }
 * }</pre>
 */
public final class StatsSubscriber implements AutoCloseable {
    private final Socket socket;
    private final BufferedReader lines;
    private final InetSocketAddress address;

    private StatsSubscriber(Socket socket, InetSocketAddress address) throws IOException {
        this.socket = socket;
        this.address = address;
        this.lines = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
    }

    /**
     * Connects to a publisher.
     *
     * @throws IOException when nothing listens there (the message names the address)
     */
    public static StatsSubscriber connect(InetSocketAddress address, Duration connectTimeout) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(address, (int) Math.min(Integer.MAX_VALUE, Math.max(1, connectTimeout.toMillis())));
            socket.shutdownOutput();   // subscribers only read
            return new StatsSubscriber(socket, address);
        } catch (IOException e) {
            socket.close();
            throw new IOException("cannot connect to a stats publisher at " + address.getHostString() + ":"
                    + address.getPort() + " (" + e.getMessage() + ")", e);
        }
    }

    /** The publisher's address, as given to {@link #connect}. */
    public InetSocketAddress address() { return address; }

    /**
     * The next stats message; blocks until the publisher sends one. Lines of other types are skipped.
     *
     * @return the message, or {@code null} when the publisher closed the connection
     * @throws IOException              when the connection breaks (or this subscriber is closed meanwhile)
     * @throws IllegalArgumentException when a line is not a stats message
     */
    public StatsMessage next() throws IOException {
        for (String line; (line = lines.readLine()) != null; ) {
            if (line.isBlank()) {
                continue;
            }
            StatsMessage message = StatsMessage.parse(line);
            if (message != null) {
                return message;
            }
        }
        return null;
    }

    /** Disconnects; a {@link #next()} blocked in another thread ends with an {@link IOException}. */
    @Override
    public void close() throws IOException {
        socket.close();
    }
}
