package dev.stoker.cli;

import dev.stoker.bench.internal.Bytes;
import java.io.PrintWriter;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Spark ingest job's output as {@code stoker ingest --spark} shows it: its progress lines
 * ({@code stoker-progress DONE FAILED SOURCES BYTES}, from the driver's listener) drawn as the local ingest's
 * {@link ProgressBar}, every other line printed as it comes (above the bar while it runs).
 */
final class SparkProgressLines implements AutoCloseable {
    /** As {@code dev.stoker.spark.SparkIngestMain.PROGRESS_PREFIX} (the CLI does not depend on the Spark module). */
    static final String PREFIX = "stoker-progress ";

    private final PrintWriter out;
    private final boolean terminal;
    private final AtomicLong bytes = new AtomicLong();
    private ProgressBar bar;
    private boolean complete;

    SparkProgressLines(PrintWriter out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
    }

    /** One line of the job's output. */
    void line(String line) {
        if (line.startsWith(PREFIX)) {
            String[] f = line.substring(PREFIX.length()).strip().split(" ");
            if (f.length == 4) {
                try {
                    progress(Integer.parseInt(f[0]), Integer.parseInt(f[1]), Integer.parseInt(f[2]), Long.parseLong(f[3]));
                    return;
                } catch (NumberFormatException e) {
                    // not ours after all: printed below
                }
            }
        }
        if (bar != null && complete) {
            close(); // the job's summary follows the finished bar, not above it
        }
        if (bar != null) {
            bar.message(line);
        } else {
            out.println(line);
            out.flush();
        }
    }

    private void progress(int done, int failed, int sources, long bytesWritten) {
        if (bar == null) {
            bar = new ProgressBar(out, terminal, "ingest", "sources", () -> Bytes.human(bytes.get()) + " written");
        }
        bar.total(sources);
        bytes.set(bytesWritten);
        bar.set(done, failed);
        complete = done >= sources;
    }

    @Override
    public void close() {
        if (bar != null) {
            bar.close();
            bar = null;
        }
    }
}
