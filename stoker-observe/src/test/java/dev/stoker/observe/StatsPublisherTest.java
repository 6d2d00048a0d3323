package dev.stoker.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.observe.internal.StatsMessage;
import dev.stoker.observe.internal.StatsSubscriber;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.Sink;
import dev.stoker.pipeline.StageStats;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link StatsPublisher} and {@link StatsSubscriber}: the line-JSON stats stream over TCP. */
@Timeout(30)
class StatsPublisherTest {
    private static final InetSocketAddress ANY_LOOPBACK_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final Duration PERIOD = Duration.ofMillis(20);

    private Pipeline<Long> pipeline;
    private Thread consumer;
    private final AtomicLong consumed = new AtomicLong();

    /** A never-ending pipeline: source, a 0.2 ms "decode", a batch stage; consumed on its own thread. */
    @BeforeEach
    void startPipeline() {
        AtomicLong next = new AtomicLong();
        pipeline = Pipeline.from(next::getAndIncrement)
                .map("decode", x -> {
                    LockSupport.parkNanos(200_000);
                    return x;
                }, s -> s.concurrency(2))
                .map("augment", x -> x + 1)
                .build(Sink.buffer(4));
        consumer = Thread.ofPlatform().name("test-consumer").start(() -> {
            try {
                for (Long x : pipeline) {
                    consumed.incrementAndGet();
                }
            } catch (RuntimeException e) {
                // closed by the test
            }
        });
    }

    @AfterEach
    void stopPipeline() throws InterruptedException {
        pipeline.close();
        consumer.join();
    }

    @Test
    void statsArriveAsOneJsonLinePerPeriodAndParseBackIntoStageValues() throws Exception {
        try (StatsPublisher publisher = StatsPublisher.start(pipeline, ANY_LOOPBACK_PORT, PERIOD)) {
            assertThat(publisher.address().getPort()).isPositive();

            // The wire format: one JSON object a line, with the fields the protocol names.
            try (Socket raw = new Socket(publisher.address().getAddress(), publisher.address().getPort());
                 BufferedReader in = new BufferedReader(new InputStreamReader(raw.getInputStream(), StandardCharsets.UTF_8))) {
                JsonNode line = new ObjectMapper().readTree(in.readLine());
                assertThat(line.get("type").asText()).isEqualTo("stats");
                assertThat(line.get("time_ms").asLong()).isCloseTo(System.currentTimeMillis(), within(60_000L));
                assertThat(line.at("/stats/stages/1/name").asText()).isEqualTo("decode");
                assertThat(line.at("/stats/verdict/line").asText()).startsWith("bottleneck: ");
                assertThat(line.at("/process/pid").asLong()).isEqualTo(ProcessHandle.current().pid());
                for (String field : List.of("heap_used_bytes", "heap_max_bytes", "rss_bytes", "offheap_bytes")) {
                    assertThat(line.get("process").has(field)).as(field).isTrue();
                }
            }

            // The subscriber parses them back into values that move as the pipeline runs.
            try (StatsSubscriber subscriber = StatsSubscriber.connect(publisher.address(), Duration.ofSeconds(5))) {
                StatsMessage first = subscriber.next();
                StatsMessage later = first;
                while (later.stats().stage("decode").itemsOut() == first.stats().stage("decode").itemsOut()) {
                    later = subscriber.next();
                }
                assertThat(first.stats().stages()).extracting(StageStats::name).containsExactly("source", "decode", "augment");
                assertThat(later.stats().stage("decode").itemsOut()).isGreaterThan(first.stats().stage("decode").itemsOut());
                assertThat(later.stats().stage("decode").concurrency()).isEqualTo(2);
                assertThat(later.stats().stage("decode").taskTime().p50Micros()).isGreaterThanOrEqualTo(150);
                assertThat(later.stats().sink().capacity()).isEqualTo(4);
                assertThat(later.timeMillis()).isGreaterThanOrEqualTo(first.timeMillis());
                assertThat(later.process().pid()).isEqualTo(ProcessHandle.current().pid());
                assertThat(later.process().heapUsedBytes()).isPositive();
                assertThat(later.process().heapMaxBytes()).isGreaterThanOrEqualTo(later.process().heapUsedBytes());
                // What the pipeline itself says, within the period's lag.
                assertThat(pipeline.stats().stage("decode").itemsOut()).isGreaterThanOrEqualTo(later.stats().stage("decode").itemsOut());
                // A message survives its own round trip.
                assertThat(StatsMessage.parse(later.toJsonLine())).isEqualTo(later);
            }
        }
    }

    @Test
    void clientsThatDisconnectOrStallBlockNeitherThePipelineNorOtherClients() throws Exception {
        try (StatsPublisher publisher = StatsPublisher.start(pipeline, ANY_LOOPBACK_PORT, PERIOD)) {
            // One that leaves after a message.
            try (StatsSubscriber leaving = StatsSubscriber.connect(publisher.address(), Duration.ofSeconds(5))) {
                assertThat(leaving.next()).isNotNull();
            }
            // One that never reads, with a tiny receive buffer: its lines pile up, then are dropped.
            try (Socket stalled = new Socket()) {
                stalled.setReceiveBufferSize(1024);
                stalled.connect(publisher.address());
                until("the stalled client's buffer overflows", () -> publisher.droppedMessages() > 0);
                until("the client that left is dropped", () -> publisher.clientCount() == 1);

                // Meanwhile the pipeline runs on and a new client gets every period's snapshot.
                long consumedBefore = consumed.get();
                try (StatsSubscriber reader = StatsSubscriber.connect(publisher.address(), Duration.ofSeconds(5))) {
                    // Ten periods at least, and on until the count moved (a loaded machine may stall a few periods).
                    List<Long> decoded = new ArrayList<>();
                    while (decoded.size() < 10 || decoded.getLast().equals(decoded.getFirst())) {
                        decoded.add(reader.next().stats().stage("decode").itemsOut());
                    }
                    assertThat(decoded).isSorted();
                }
                until("the consumer takes on", () -> consumed.get() > consumedBefore);
            }
            until("both clients are gone", () -> publisher.clientCount() == 0);
        }
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                .noneMatch(name -> name.startsWith("stoker-stats-publisher"));
    }

    @Test
    void withoutClientsNoSnapshotIsSerialised() throws Exception {
        try (StatsPublisher publisher = StatsPublisher.start(pipeline, ANY_LOOPBACK_PORT, Duration.ofMillis(1))) {
            until("the pipeline runs a while", () -> consumed.get() > 500);
            assertThat(publisher.encodedMessages()).isZero();

            try (StatsSubscriber subscriber = StatsSubscriber.connect(publisher.address(), Duration.ofSeconds(5))) {
                assertThat(subscriber.next()).isNotNull();
            }
            assertThat(publisher.encodedMessages()).isPositive();
            until("the client is gone", () -> publisher.clientCount() == 0);
            long encoded = publisher.encodedMessages();
            long consumedNow = consumed.get();
            until("the pipeline runs on", () -> consumed.get() > consumedNow + 500);
            assertThat(publisher.encodedMessages()).isLessThanOrEqualTo(encoded + 1);   // one tick may have been in flight
        }
    }

    /** Polls observable state (never elapsed time) until it holds, for at most 20 s. */
    private static void until(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for: %s", what).isLessThan(deadline);
            LockSupport.parkNanos(1_000_000);
        }
    }
}
