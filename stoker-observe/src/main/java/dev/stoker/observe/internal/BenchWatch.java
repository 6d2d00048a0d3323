package dev.stoker.observe.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.observe.StatsPublisher;
import dev.stoker.pipeline.Pipeline;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * What {@code stoker bench} shows of a run besides its table: the dashboard ({@code --dashboard}), the
 * stats stream ({@code --publish}) and the series of snapshots behind {@code --report}. Made from the
 * options before the run, {@link #watch started} on the loader's pipeline, closed when the loop ends.
 * Every snapshot is a {@link StatsMessage} line plus {@code "samples"}: the clips the bench consumed.
 */
public final class BenchWatch {
    static final Duration SAMPLE_PERIOD = Duration.ofMillis(500);
    /** The report keeps at most this many snapshots: past it, every other one goes and the period doubles. */
    static final int MAX_SERIES_POINTS = 1200;

    private final Integer dashboardPort;
    private final Integer publishPort;
    private final boolean keepSeries;
    private final PrintWriter out;
    private final ThinnedSeries<ObjectNode> series = new ThinnedSeries<>(MAX_SERIES_POINTS);
    private String dashboardUrl;

    /**
     * @param dashboardPort the dashboard's port (0: any free one), or null for none
     * @param publishPort   the stats publisher's port, or null for none
     * @param keepSeries    whether to keep the snapshots for a report
     */
    public BenchWatch(Integer dashboardPort, Integer publishPort, boolean keepSeries, PrintWriter out) {
        this.dashboardPort = dashboardPort;
        this.publishPort = publishPort;
        this.keepSeries = keepSeries;
        this.out = out;
    }

    /** What {@link #watch} started; closing it stops all of it. */
    public interface Watching extends AutoCloseable {
        @Override
        void close();
    }

    /** Starts what the options asked for on {@code pipeline}; close the result when the run ends. */
    public Watching watch(Pipeline<?> pipeline, LongSupplier samples) throws IOException {
        if (dashboardPort == null && publishPort == null && !keepSeries) {
            return () -> { };
        }
        InetAddress loopback = InetAddress.getLoopbackAddress();
        StatsPublisher publisher = null;
        DashboardServer dashboard = null;
        try {
            if (publishPort != null) {
                publisher = StatsPublisher.start(pipeline, new InetSocketAddress(loopback, publishPort), SAMPLE_PERIOD);
                out.printf(Locale.ROOT, "publishing stats on localhost:%d (watch with: stoker monitor localhost:%1$d)%n",
                        publisher.address().getPort());
            }
            if (dashboardPort != null) {
                dashboard = DashboardServer.start(new InetSocketAddress(loopback, dashboardPort), "bench");
                dashboardUrl = dashboard.url().toString();
                out.println("dashboard: " + dashboardUrl + " (while the bench runs)");
            }
        } catch (IOException | RuntimeException e) {
            if (publisher != null) {
                publisher.close();
            }
            throw e;
        }
        out.flush();
        Sampler sampler = new Sampler(pipeline, samples, dashboard);
        sampler.thread.start();
        StatsPublisher startedPublisher = publisher;
        DashboardServer startedDashboard = dashboard;
        return () -> {
            sampler.stop();
            if (startedDashboard != null) {
                startedDashboard.close();
            }
            if (startedPublisher != null) {
                startedPublisher.close();
            }
        };
    }

    /** The snapshots kept for the report, oldest first. */
    public List<ObjectNode> series() { return series.items(); }

    /** The dashboard's address, or null without {@code --dashboard}. */
    public String dashboardUrl() { return dashboardUrl; }

    /** Takes a snapshot every {@link #SAMPLE_PERIOD}, and one more when stopped. */
    private final class Sampler {
        final Thread thread;
        private final Pipeline<?> pipeline;
        private final LongSupplier samples;
        private final DashboardServer dashboard;
        private volatile boolean stopped;

        Sampler(Pipeline<?> pipeline, LongSupplier samples, DashboardServer dashboard) {
            this.pipeline = pipeline;
            this.samples = samples;
            this.dashboard = dashboard;
            this.thread = Thread.ofPlatform().name("stoker-bench-watch").daemon(true).unstarted(this::run);
        }

        private void run() {
            long periodNanos = SAMPLE_PERIOD.toNanos();
            while (!stopped) {
                sample(false);
                LockSupport.parkNanos(periodNanos);
            }
        }

        private void sample(boolean last) {
            if (dashboard == null && !keepSeries) {
                return;
            }
            ObjectNode snapshot;
            try {
                snapshot = StatsMessage.of(pipeline).toJsonNode();
            } catch (RuntimeException e) {
                return;   // the pipeline is closing
            }
            snapshot.put("samples", samples.getAsLong());
            if (dashboard != null) {
                dashboard.publish(snapshot.toString());
            }
            if (keepSeries) {
                series.add(snapshot, last);
            }
        }

        void stop() {
            stopped = true;
            SamplingThreads.wakeAndJoin(thread, Duration.ofSeconds(5));
            sample(true);
        }
    }
}
