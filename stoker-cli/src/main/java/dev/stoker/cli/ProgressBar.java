package dev.stoker.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A progress bar with rate and ETA, redrawn twice a second on a terminal; in a log (not a terminal) a plain line
 * every few seconds instead. Workers count what they finish from any thread; {@link #close()} draws the last line.
 * Used by {@code ingest} and {@code scan}.
 */
final class ProgressBar implements AutoCloseable {
    private static final int WIDTH = 30;

    private final PrintWriter out;
    private final boolean terminal;
    private final String command;
    private final String noun;
    private final Supplier<String> extra;
    private final long startNanos = System.nanoTime();
    private final AtomicInteger done = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private volatile int total;
    private final Thread printer;
    private volatile boolean closed;

    /**
     * @param command what a log line starts with ({@code ingest})
     * @param noun    what is counted ({@code sources})
     * @param extra   more to show after the rate ({@code 12 MiB written}), or empty
     */
    ProgressBar(PrintWriter out, boolean terminal, String command, String noun, Supplier<String> extra) {
        this.out = out;
        this.terminal = terminal;
        this.command = command;
        this.noun = noun;
        this.extra = extra;
        this.printer = Thread.ofPlatform().daemon().name("stoker-" + command + "-progress").start(this::print);
    }

    /** How many there are to do. */
    void total(int items) {
        total = items;
    }

    /** One more done; {@code itemFailed} counts it as failed too. Any thread. */
    void done(boolean itemFailed) {
        done.incrementAndGet();
        if (itemFailed) {
            failed.incrementAndGet();
        }
    }

    /** Done and failed so far, counted elsewhere (a Spark job's driver). Any thread. */
    void set(int itemsDone, int itemsFailed) {
        done.set(itemsDone);
        failed.set(itemsFailed);
    }

    /** Prints a line of its own without breaking the bar. */
    void message(String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }

    private void print() {
        long period = terminal ? 500 : 5_000;
        while (!closed) {
            try {
                Thread.sleep(period);
            } catch (InterruptedException e) {
                return;
            }
            if (!closed) {
                line(false);
            }
        }
    }

    private void line(boolean last) {
        int todo = total;
        int n = done.get();
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        double rate = seconds > 0 ? n / seconds : 0;
        String eta = rate > 0 && n < todo ? String.format(Locale.ROOT, "ETA %s", duration((todo - n) / rate)) : "";
        String more = extra.get();
        String text = String.format(Locale.ROOT, "%d/%d %s  %.1f/s  %s%d failed  %s", n, todo, noun, rate,
                more.isEmpty() ? "" : more + "  ", failed.get(), eta);
        synchronized (out) {
            if (terminal) {
                int filled = todo == 0 ? WIDTH : (int) Math.min(WIDTH, (long) WIDTH * n / todo);
                out.print("\r[" + "#".repeat(filled) + " ".repeat(WIDTH - filled) + "] " + text + "   " + (last ? "\n" : ""));
            } else {
                out.println(command + ": " + text);
            }
            out.flush();
        }
    }

    private static String duration(double seconds) {
        long s = Math.round(seconds);
        return s >= 3600 ? String.format(Locale.ROOT, "%dh%02dm", s / 3600, s / 60 % 60)
                : String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }

    @Override
    public void close() {
        closed = true;
        printer.interrupt();
        try {
            printer.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (terminal || done.get() > 0) {
            line(true);
        }
    }
}
