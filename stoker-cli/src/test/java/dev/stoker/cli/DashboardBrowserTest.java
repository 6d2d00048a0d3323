package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.bench.internal.BenchResult;
import dev.stoker.bench.internal.CpuBurn;
import dev.stoker.bench.internal.MemoryProbe;
import dev.stoker.cli.DemoWorkload.Batch;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.BatchPool;
import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.observe.internal.BenchReportWriter;
import dev.stoker.observe.internal.BenchWatch;
import dev.stoker.observe.internal.DashboardAssets;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.Sink;
import dev.stoker.pipeline.Verdict;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard and the bench report in a real browser: Debian's headless Chromium, driven through
 * /usr/bin/chromedriver (Selenium), against the synthetic pipeline of {@code stoker demo}. Skips, saying
 * why, where Chromium or its driver is missing. Screenshots land in {@code target/} (not in git).
 * The pages are stoker-observe's; the test lives here, where they meet what feeds them: {@code stoker demo}'s
 * workload, a real {@code BenchResult} (stoker-bench) and the tuner's report (stoker-tune).
 */
@Timeout(60)
class DashboardBrowserTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    @TempDir
    static Path dir;
    static WebDriver browser;
    static Pipeline<Batch> pipeline;
    static Thread trainer;
    static final AtomicLong samplesTrained = new AtomicLong();

    @BeforeAll
    static void startBrowserAndPipeline() {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM),
                "skipped: no " + CHROMIUM + " (Debian's chromium; bin/install-test-deps installs it as root)");
        Assumptions.assumeTrue(Files.isExecutable(CHROMEDRIVER),
                "skipped: no " + CHROMEDRIVER + " (Debian's chromium-driver; bin/install-test-deps installs it as root)");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + dir.resolve("chromium-profile"), "--window-size=1400,1700");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);

        pipeline = new DemoWorkload(CpuBurn.calibrated()).pipeline().build(Sink.buffer(DemoWorkload.SINK_CAPACITY));
        trainer = Thread.ofPlatform().name("test-trainer").start(() -> {
            try {
                for (Batch b : pipeline) {
                    DemoWorkload.trainStep(b);
                    samplesTrained.addAndGet(b.clips());
                }
            } catch (InterruptedException | RuntimeException e) {
                // closed by the test
            }
        });
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (browser != null) {
            browser.quit();
        }
        if (pipeline != null) {
            pipeline.close();
            trainer.join();
        }
    }

    @Test
    void liveDashboardShowsEveryStageNumbersThatMoveChartsAndTheVerdict() throws Exception {
        BenchWatch watch = new BenchWatch(0, null, false, new PrintWriter(new StringWriter()));
        try (BenchWatch.Watching watching = watch.watch(pipeline, samplesTrained::get)) {
            browser.get(watch.dashboardUrl());
            WebDriverWait wait = new WebDriverWait(browser, PATIENCE, Duration.ofMillis(100));

            List<String> stages = List.of("source", "fetch", "demux", "decode", "augment", "batch", "collate");
            // The table is redrawn with every snapshot: read it in one script call, not element by element.
            wait.until(b -> script("return document.querySelectorAll('#stage-table tbody tr').length").equals((long) stages.size()));
            assertThat(script("return [...document.querySelectorAll('#stage-table tbody tr')].map(r => r.dataset.stage)"))
                    .asList().containsExactlyElementsOf(stages);
            assertThat(script("return document.getElementById('stage-table').innerText").toString()).contains(stages);

            // The numbers move: decode's output count, pushed by server-sent events, grows on the page.
            long decodedBefore = number(cell("decode", "out"));
            wait.until(b -> number(cell("decode", "out")) > decodedBefore);
            wait.until(b -> !cell("decode", "rate").equals("–"));
            assertThat(Double.parseDouble(cell("decode", "rate").replace(",", ""))).isPositive();

            // The verdict, highlighted by its state, and the bottleneck's row marked.
            wait.until(b -> !b.findElement(By.id("verdict")).getAttribute("class").contains("warming-up"));
            WebElement verdict = browser.findElement(By.id("verdict"));
            assertThat(verdict.getText()).startsWith("bottleneck: ");
            Verdict.State state = pipeline.stats().verdict().state();
            assertThat(verdict.getAttribute("class")).contains("verdict");
            if (state == Verdict.State.SATURATED) {
                String bottleneck = verdict.getAttribute("data-bottleneck");
                wait.until(b -> script("return document.querySelector(\"tr[data-stage='" + bottleneck + "']\").className")
                        .equals("bottleneck"));
            }

            // Charts drawn by Chart.js from the series: several points of throughput and queue fill by now.
            wait.until(b -> points("chart-throughput") >= 3 && points("chart-queues") >= 3 && points("chart-memory") >= 3);
            assertThat(script("return Chart.getChart('chart-shares').data.labels")).asList().contains("decode");
            assertThat(browser.findElement(By.id("kpi-heap")).getText()).contains("MiB");
            assertThat(browser.findElement(By.id("connection")).getText()).isEqualTo("live");

            screenshot("dashboard.png");
        }
    }

    @Test
    void aPageOpenedMidRunDrawsTheRunFromItsStartAndTheOffHeapPools() throws Exception {
        // A batch pool holding four buffers (about 19 MiB in an off-heap arena) while the run goes on.
        BatchShape shape = BatchShape.rgb(8, 16, 112, 112);
        try (BatchPool pool = new BatchPool(shape, shape.batchBytes() * 4)) {
            List<ClipBatch> held = List.of(pool.acquire(), pool.acquire(), pool.acquire(), pool.acquire());
            BenchWatch watch = new BenchWatch(0, null, true, new PrintWriter(new StringWriter()));
            try (BenchWatch.Watching watching = watch.watch(pipeline, samplesTrained::get)) {
                // The dashboard publishes what the series keeps: six snapshots on, the page has missed them all.
                List<ObjectNode> before = awaitSeries(watch, 6);
                assertThat(before.size()).isGreaterThanOrEqualTo(6);
                browser.get(watch.dashboardUrl());
                WebDriverWait wait = new WebDriverWait(browser, PATIENCE, Duration.ofMillis(100));

                // At once (the server's history), not 0.5 s a point from now: the run's first snapshot is drawn.
                wait.until(b -> points("chart-memory") >= 3L * before.size());
                double firstSeconds = before.getFirst().get("stats").get("elapsedMillis").asLong() / 1000.0;
                assertThat(((Number) script("return Math.min(...Chart.getChart('chart-memory').data.datasets[0].data"
                        + ".map(p => p.x))")).doubleValue()).isCloseTo(firstSeconds, org.assertj.core.data.Offset.offset(1e-9));

                // The off-heap tile counts the pool's arena (the memory account), and its tooltip says where it is.
                long poolMib = 4 * shape.batchBytes() / (1 << 20);
                wait.until(b -> number(b.findElement(By.id("kpi-offheap")).getText().replace(" MiB", "")) >= poolMib);
                assertThat(browser.findElement(By.id("kpi-offheap")).getAttribute("title")).contains("pooled buffers: ");
                screenshot("dashboard-opened-mid-run.png");
            } finally {
                held.forEach(ClipBatch::close);
            }
        }
    }

    @Test
    void benchReportOpensFromAFileWithChartsOfTheWholeRun() throws Exception {
        BenchWatch watch = new BenchWatch(null, null, true, new PrintWriter(new StringWriter()));
        try (BenchWatch.Watching watching = watch.watch(pipeline, samplesTrained::get)) {
            awaitSeries(watch, 4);
        }
        List<ObjectNode> series = watch.series();
        assertThat(series.size()).isGreaterThanOrEqualTo(4);
        BenchResult result = new BenchResult("synthetic", 500, 2, series.getLast().get("stats").at("/sink/delivered").asLong(),
                samplesTrained.get(), 2.0, 330, 330 * 16, 0.1, 16, null, Double.NaN, LoaderOptions.defaults(),
                pipeline.config(), pipeline.stats(), List.of(), Map.of(),
                new BenchResult.Memory(MemoryProbe.read(), null, MemoryProbe.read(), MemoryProbe.read(), java.util.List.of()), null,
                Double.NaN, Double.NaN, null, null, null);
        Path report = Path.of("target", "bench-report.html").toAbsolutePath();
        BenchReportWriter.write(report, new com.fasterxml.jackson.databind.ObjectMapper().valueToTree(result), series);

        browser.get(report.toUri().toString());
        WebDriverWait wait = new WebDriverWait(browser, PATIENCE, Duration.ofMillis(100));
        wait.until(b -> b.findElement(By.id("verdict")).getText().startsWith("bottleneck: "));
        assertThat(browser.findElement(By.id("summary-table")).getText()).contains("samples/s", "synthetic");
        assertThat(points("chart-throughput")).isGreaterThanOrEqualTo(3);
        assertThat(points("chart-queues")).isGreaterThanOrEqualTo(3);
        assertThat(script("return Chart.getChart('chart-tasktime').data.labels")).asList().contains("decode", "collate");
        assertThat(script("return Chart.getChart('chart-throughput').data.datasets.map(d => d.label)")).asList()
                .contains("samples/s (consumer)");
        screenshot("bench-report.png");
    }

    @Test
    void tuneReportDrawsItsCeilingsBesideTheTrials() throws IOException {
        // A real search over instant trials (throughput peaks at a=4), then its report with both ceilings.
        dev.stoker.tune.internal.TrialRunner runner = t -> {
            int a = t.options().config().stage("a").concurrency();
            return new dev.stoker.tune.internal.TrialMetrics(50.0 * Math.min(a, 4) + t.trial() % 2, "a", "saturated",
                    "bottleneck: a (saturated)", 0.5, 0.1, List.of(new dev.stoker.tune.internal.TrialMetrics.Stage("a", a, 0.95, 0.05, 0,
                    10, 10, 4, 0.9, 0)), 0.2, null, null);
        };
        dev.stoker.tune.TuneResult result = dev.stoker.tune.Tuner.of(dev.stoker.tune.SearchSpace.of(
                        dev.stoker.tune.Knob.linear("config.stages.a.concurrency", 1, 8)), runner)
                .startFrom(dev.stoker.loader.LoaderOptions.defaults().with("config.stages.a.concurrency", 1))
                .maxTrials(8).run();
        Path report = Path.of("target", "tune-report.html").toAbsolutePath();
        dev.stoker.tune.internal.TuneReport.write(report, result, List.of(
                new dev.stoker.tune.internal.Ceiling("headspace ceiling", 400, "a 20 ms step"),
                new dev.stoker.tune.internal.Ceiling("decode ceiling", 250, "2 threads at once")), null,
                DashboardAssets.text(DashboardAssets.CHART_JS));

        browser.get(report.toUri().toString());
        new WebDriverWait(browser, PATIENCE, Duration.ofMillis(100)).until(b -> script("return Chart.getChart('chart') != null")
                .equals(Boolean.TRUE));
        assertThat(script("return Chart.getChart('chart').data.datasets.map(d => d.label)")).asList()
                .containsExactly("best so far", "trial", "headspace ceiling", "decode ceiling");
        // Each ceiling a dashed line across every trial at its value.
        assertThat(script("const d = Chart.getChart('chart').data.datasets[3]; "
                + "return [d.data.length, d.data[0].y, d.borderDash.length]")).asList()
                .containsExactly((long) result.experiments().size(), 250L, 2L);
        assertThat(browser.findElement(By.tagName("p")).getText())
                .contains("Decode ceiling: 250 samples/s (2 threads at once); the start config runs at 0.20 of it");
        screenshot("tune-report.png");
    }

    /** The watch's series once it holds {@code snapshots} (or whatever it holds after {@link #PATIENCE}). */
    private static List<ObjectNode> awaitSeries(BenchWatch watch, int snapshots) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (watch.series().size() < snapshots && System.nanoTime() < deadline) {
            Thread.sleep(50);   // polling the sampler's progress
        }
        return watch.series();
    }

    /** A stage table cell's text, read in one script call (the rows are replaced with every snapshot). */
    private static String cell(String stage, String column) {
        return script("return document.querySelector(\"tr[data-stage='" + stage + "'] td[data-col='" + column + "']\").textContent")
                .toString();
    }

    private static long number(String text) {
        return Long.parseLong(text.replace(",", ""));
    }

    /** Points in a line chart's datasets, all together. */
    private static long points(String canvasId) {
        Object n = script("const c = Chart.getChart('" + canvasId + "'); "
                + "return c ? c.data.datasets.reduce((sum, d) => sum + d.data.length, 0) : 0;");
        return ((Number) n).longValue();
    }

    private static Object script(String js) {
        return ((JavascriptExecutor) browser).executeScript(js);
    }

    private static void screenshot(String name) throws IOException {
        File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Files.copy(shot.toPath(), Path.of("target", name).toAbsolutePath(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
}
