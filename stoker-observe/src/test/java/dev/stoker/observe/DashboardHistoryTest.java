package dev.stoker.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.observe.internal.DashboardServer;
import dev.stoker.observe.internal.ThinnedSeries;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A page that opens mid-run gets the run so far: {@code /events} starts with one {@code history} event holding every
 * message kept (thinned past {@link DashboardServer#HISTORY_MESSAGES}), then carries the messages published after it,
 * none twice and none missing.
 */
@Timeout(30)
class DashboardHistoryTest {

    @Test
    void aTabOpenedMidRunGetsTheRunSoFarThenEveryNewMessage() throws Exception {
        try (DashboardServer dashboard = DashboardServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), "test")) {
            for (int i = 0; i < 5; i++) {
                dashboard.publish(message(i));
            }
            HttpURLConnection events = (HttpURLConnection) dashboard.url().resolve("events").toURL().openConnection();
            try (BufferedReader in = new BufferedReader(new InputStreamReader(events.getInputStream(), StandardCharsets.UTF_8))) {
                assertThat(nextEvent(in)).isEqualTo("event: history\ndata: [" + String.join(",",
                        IntStream.range(0, 5).mapToObj(DashboardHistoryTest::message).toList()) + "]");
                dashboard.publish(message(5));
                assertThat(nextEvent(in)).isEqualTo("data: " + message(5));
            }
        }
    }

    @Test
    void aLongRunIsKeptWholeAtALowerResolution() {
        ThinnedSeries<Integer> series = new ThinnedSeries<>(8);
        for (int i = 0; i < 100; i++) {
            series.add(i, i == 99);
        }
        List<Integer> kept = series.items();
        // Past 8 items every other went, and from then on every 2nd, 4th... new one: the start, evenly, and the end.
        assertThat(kept).hasSizeLessThanOrEqualTo(8).startsWith(0).endsWith(99);
        assertThat(kept).isSorted();
        assertThat(IntStream.range(1, kept.size() - 1).map(i -> kept.get(i) - kept.get(i - 1)).distinct().toArray())
                .as("the gaps between kept items, but the last").hasSize(1);
    }

    private static String message(int i) {
        return "{\"type\":\"stats\",\"n\":" + i + "}";
    }

    /** The next server-sent event's lines (comments and the retry line skipped). */
    private static String nextEvent(BufferedReader in) throws Exception {
        StringBuilder event = new StringBuilder();
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.isEmpty()) {
                if (!event.isEmpty()) {
                    return event.toString();
                }
            } else if (!line.startsWith(":") && !line.startsWith("retry:")) {
                event.append(event.isEmpty() ? "" : "\n").append(line);
            }
        }
        return event.toString();
    }
}
