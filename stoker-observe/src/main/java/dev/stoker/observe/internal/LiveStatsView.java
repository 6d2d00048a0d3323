package dev.stoker.observe.internal;

import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineStats;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Shows a running pipeline's stats every period: a progress line and {@link PipelineStats#toTable()}.
 * Not on a terminal, the period doubles after each block up to {@link #LOG_PERIOD_CAP}.
 * On a terminal it redraws in place (top of the screen, like {@code watch}); otherwise it prints plain
 * blocks one after another, for logs and pipes.
 */
public final class LiveStatsView implements AutoCloseable {
    private static final String HOME = "\033[H";
    private static final String CLEAR_SCREEN = "\033[2J";
    private static final String CLEAR_TO_LINE_END = "\033[K";
    private static final String CLEAR_BELOW = "\033[J";

    static final Duration LOG_PERIOD_CAP = Duration.ofSeconds(30);

    private final Thread thread;
    private final PrintWriter out;
    private final boolean redraw;
    private volatile boolean stopped;
    private volatile boolean drawn;

    private LiveStatsView(Pipeline<?> pipeline, LongSupplier samples, long plannedSeconds, PrintWriter out,
                          boolean redraw, Duration period) {
        long periodNanos = period.toNanos();
        this.out = out;
        this.redraw = redraw;
        this.thread = Thread.ofPlatform().name("stoker-live-stats").daemon(true).unstarted(() -> {
            long lastSamples = 0;
            long lastNanos = System.nanoTime();
            boolean first = true;
            long waitNanos = periodNanos;
            while (!stopped) {
                LockSupport.parkNanos(waitNanos);
                if (!redraw) {
                    // A log, not a screen: blocks every period at first, then ever further apart (up to
                    // LOG_PERIOD_CAP), so that a run of hours leaves a log of pages, not of thousands of tables.
                    waitNanos = Math.min(2 * waitNanos, Math.max(periodNanos, LOG_PERIOD_CAP.toNanos()));
                }
                if (stopped) {
                    return;
                }
                PipelineStats stats = pipeline.stats();
                long samplesNow = samples.getAsLong();
                long now = System.nanoTime();
                double recentRate = (samplesNow - lastSamples) / ((now - lastNanos) / 1e9);
                lastSamples = samplesNow;
                lastNanos = now;
                String frame = progressLine(stats, samplesNow, recentRate, plannedSeconds) + "\n" + stats.toTable();
                draw(out, frame, redraw, first);
                first = false;
                drawn = true;
            }
        });
    }

    /** Starts showing {@code pipeline}'s stats; {@code samples} counts what the consumer has trained on. */
    public static LiveStatsView start(Pipeline<?> pipeline, LongSupplier samples, long plannedSeconds, PrintWriter out,
                               boolean redraw, Duration period) {
        LiveStatsView view = new LiveStatsView(pipeline, samples, plannedSeconds, out, redraw, period);
        view.thread.start();
        return view;
    }

    /** Prints one frame: on a terminal over the last one (the first clears the screen), else as a plain block. */
    public static void draw(PrintWriter out, String frame, boolean redraw, boolean first) {
        synchronized (out) {
            if (redraw) {
                out.print((first ? CLEAR_SCREEN : "") + HOME
                        + frame.replace("\n", CLEAR_TO_LINE_END + "\n") + CLEAR_BELOW);
            } else {
                out.print(frame + "\n");
            }
            out.flush();
        }
    }

    /** Whether standard output is a terminal that can be redrawn. */
    public static boolean stdoutIsTerminal() {
        var console = System.console();
        return console != null && console.isTerminal() && !"dumb".equals(System.getenv("TERM"));
    }

    static String progressLine(PipelineStats stats, long samples, double recentSamplesPerSecond, long plannedSeconds) {
        double elapsedSeconds = stats.elapsedMillis() / 1000.0;
        return String.format(Locale.ROOT, "%.1f s%s | epoch %d | %d samples in %d steps | %.0f samples/s now, %.0f overall%s",
                elapsedSeconds, plannedSeconds > 0 ? " of " + plannedSeconds + " s" : "",
                stats.epoch(), samples, stats.sink().delivered(), recentSamplesPerSecond,
                elapsedSeconds > 0 ? samples / elapsedSeconds : 0, plannedSeconds > 0 ? "" : " | Ctrl-C stops");
    }

    /** Stops the updates; on a terminal, clears the live frame so that what follows takes its place. */
    @Override
    public void close() {
        stopped = true;
        SamplingThreads.wakeAndJoin(thread, Duration.ofSeconds(2));
        if (redraw && drawn) {
            synchronized (out) {
                out.print(HOME + CLEAR_BELOW);
                out.flush();
            }
        }
    }
}
