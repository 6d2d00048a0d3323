package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.bench.internal.CpuBurn;
import dev.stoker.cli.DemoWorkload.Batch;
import dev.stoker.observe.internal.DashboardAssets;
import dev.stoker.observe.internal.DashboardServer;
import dev.stoker.observe.internal.StatsMessage;
import dev.stoker.observe.StatsPublisher;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.Sink;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** {@code stoker monitor}: a job's published stats as a table in the terminal, or as the dashboard. */
@Timeout(30)
class MonitorCommandTest {
    static Pipeline<Batch> pipeline;
    static Thread trainer;
    static StatsPublisher publisher;

    @BeforeAll
    static void startPublishingJob() throws Exception {
        pipeline = new DemoWorkload(CpuBurn.calibrated()).pipeline().build(Sink.buffer(DemoWorkload.SINK_CAPACITY));
        trainer = Thread.ofPlatform().name("test-trainer").start(() -> {
            try {
                for (Batch b : pipeline) {
                    DemoWorkload.trainStep(b);
                }
            } catch (InterruptedException | RuntimeException e) {
                // closed by the test
            }
        });
        publisher = StatsPublisher.start(pipeline, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), Duration.ofMillis(100));
    }

    @AfterAll
    static void stop() throws InterruptedException {
        publisher.close();
        pipeline.close();
        trainer.join();
    }

    @Test
    void drawsTheJobsStageTableMemoryAndVerdict() {
        CliRun run = CliRun.stoker("monitor", "--count", "3", "localhost:" + publisher.address().getPort());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("pid " + ProcessHandle.current().pid(), "heap ", "off-heap", "RSS");
        assertThat(run.out().lines().filter(l -> l.startsWith("stage ")).count()).isEqualTo(3);   // three tables
        assertThat(run.out()).contains(DemoWorkload.STAGES).contains("bottleneck: ");
        assertThat(run.out()).doesNotContain("\033[");   // not a terminal: plain blocks
    }

    @Test
    void servesTheDashboardOfAJobStartedElsewhere() throws Exception {
        int webPort;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            webPort = free.getLocalPort();
        }
        AtomicReference<CliRun> result = new AtomicReference<>();
        CompletableFuture<Void> monitor = CompletableFuture.runAsync(() -> result.set(CliRun.stoker(
                "monitor", "--web", String.valueOf(webPort), "--count", "30", ":" + publisher.address().getPort())));

        HttpClient http = HttpClient.newHttpClient();
        URI events = URI.create("http://localhost:" + webPort + "/events");
        HttpResponse<java.io.InputStream> response = null;
        for (long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos(); response == null; ) {
            try {
                response = http.send(HttpRequest.newBuilder(events).build(), HttpResponse.BodyHandlers.ofInputStream());
            } catch (java.net.ConnectException e) {
                assertThat(System.nanoTime()).as("the dashboard never listened").isLessThan(deadline);
                Thread.sleep(20);   // polling for the monitor's server to be up
            }
        }
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
        try (BufferedReader in = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            // The first event is the run so far ("event: history", an array); then each message as one "data:" line.
            String line;
            String previous = "";
            do {
                line = in.readLine();
                if (line != null && line.startsWith("data: ") && previous.equals("event: history")) {
                    assertThat(line).startsWith("data: [{\"type\":\"stats\"");
                    line = "";
                }
                previous = line == null ? "" : line;
            } while (line != null && !line.startsWith("data: "));
            assertThat(line).isNotNull();
            StatsMessage message = StatsMessage.parse(line.substring("data: ".length()));
            assertThat(message.stats().stage("decode").concurrency()).isEqualTo(DemoWorkload.DECODE_WORKERS);
            assertThat(message.process().pid()).isEqualTo(ProcessHandle.current().pid());
        }
        String page = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + webPort + "/")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertThat(page).contains("<canvas id=\"chart-throughput\"", "vendor/chart.umd.min.js");
        HttpResponse<String> chartJs = http.send(HttpRequest.newBuilder(
                URI.create("http://localhost:" + webPort + "/vendor/chart.umd.min.js")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(chartJs.statusCode()).isEqualTo(200);
        assertThat(chartJs.body()).startsWith("/*!\n * Chart.js v" + DashboardAssets.chartJsVersion());

        monitor.get();
        assertThat(result.get().exitCode()).as(result.get().err()).isZero();
        Matcher url = Pattern.compile("dashboard of \\S+: (http://localhost:\\d+/)").matcher(result.get().out());
        assertThat(url.find()).as(result.get().out()).isTrue();
        assertThat(url.group(1)).isEqualTo("http://localhost:" + webPort + "/");
    }

    @Test
    void nothingListeningIsAOneLineFailure() throws Exception {
        int closedPort;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = free.getLocalPort();
        }
        CliRun run = CliRun.stoker("monitor", "localhost:" + closedPort);

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.errLines()).singleElement().asString()
                .startsWith("stoker monitor: cannot connect to a stats publisher at localhost:" + closedPort);
    }

    @Test
    void aBadAddressIsAUsageError() {
        CliRun run = CliRun.stoker("monitor", "localhost:http");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("HOST:PORT: localhost:http (expected: e.g. localhost:7077");
    }

    @Test
    void webTakesAnOptionalPortBeforeTheAddress() {
        MonitorCommand withoutPort = new MonitorCommand();
        new CommandLine(withoutPort).parseArgs("--web", "localhost:7077");
        assertThat(withoutPort.webPort).isEqualTo(DashboardServer.DEFAULT_PORT);
        assertThat(withoutPort.target).isEqualTo("localhost:7077");

        MonitorCommand withPort = new MonitorCommand();
        new CommandLine(withPort).parseArgs("--web", "0", "localhost:7077");
        assertThat(withPort.webPort).isZero();
        assertThat(withPort.target).isEqualTo("localhost:7077");
    }
}
