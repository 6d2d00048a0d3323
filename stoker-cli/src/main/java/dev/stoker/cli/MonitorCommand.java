package dev.stoker.cli;

import dev.stoker.bench.internal.MemoryProbe;
import dev.stoker.observe.internal.DashboardServer;
import dev.stoker.observe.internal.LiveStatsView;
import dev.stoker.observe.internal.StatsMessage;
import dev.stoker.observe.internal.StatsSubscriber;
import dev.stoker.pipeline.PipelineStats;
import dev.stoker.pipeline.ProcessStats;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/** {@code stoker monitor HOST:PORT}: watches a pipeline that publishes its stats, in the terminal or a browser. */
@Command(name = "monitor",
        header = "Watch the stats of a pipeline running in another process (terminal or web).",
        mixinStandardHelpOptions = true,
        description = {
                "Watches a running pipeline from another process: connects to its stats publisher",
                "(stoker bench --publish PORT, or StatsPublisher.start(...) in any JVM) and shows the",
                "live per-stage table, memory and the bottleneck verdict; with --web, serves the",
                "dashboard instead. Ends when the job ends (or Ctrl-C).",
                "",
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  stoker bench --publish 7077 &           a job that publishes its stats",
                "  stoker monitor localhost:7077           its live table, here",
                "  stoker monitor --web localhost:7077     the dashboard on localhost:8077",
                "  stoker monitor --web 9000 host:7077     ... on port 9000",
                "  stoker monitor --count 1 :7077          one snapshot, then exit",
        })
final class MonitorCommand extends Subcommand {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    @Parameters(index = "0", paramLabel = "HOST:PORT") String target;

    @Option(names = "--web", arity = "0..1", preprocessor = OptionalPort.class,
            fallbackValue = "" + DashboardServer.DEFAULT_PORT, paramLabel = "PORT")
    Integer webPort;

    @Option(names = "--count", paramLabel = "N", defaultValue = "0") long count;

    @Override
    public Integer call() throws Exception {
        InetSocketAddress address = parseTarget(target);
        if (count < 0) {
            throw usageError("--count: " + count + " (expected: 0+)");
        }
        PrintWriter out = out();
        String name = address.getHostString() + ":" + address.getPort();
        try (StatsSubscriber subscriber = StatsSubscriber.connect(address, CONNECT_TIMEOUT)) {
            return webPort != null ? serve(subscriber, name, out) : draw(subscriber, name, out);
        }
    }

    private int draw(StatsSubscriber subscriber, String name, PrintWriter out) throws IOException {
        boolean redraw = LiveStatsView.stdoutIsTerminal();
        StatsMessage before = null;
        long shown = 0;
        for (StatsMessage m; (m = subscriber.next()) != null; ) {
            LiveStatsView.draw(out, header(name, m, before) + "\n" + m.stats().toTable(), redraw, shown == 0);
            before = m;
            if (++shown == count) {
                return ExitCode.OK;
            }
        }
        out.println(ended(name, shown));
        out.flush();
        return ExitCode.OK;
    }

    private int serve(StatsSubscriber subscriber, String name, PrintWriter out) throws IOException {
        try (DashboardServer dashboard = DashboardServer.start(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), webPort), "monitor " + name)) {
            out.println("dashboard of " + name + ": " + dashboard.url() + " (Ctrl-C stops)");
            out.flush();
            long shown = 0;
            for (StatsMessage m; (m = subscriber.next()) != null; ) {
                dashboard.publish(m.toJsonLine());
                if (++shown == count) {
                    return ExitCode.OK;
                }
            }
            out.println(ended(name, shown));
            out.flush();
            return ExitCode.OK;
        }
    }

    private static String ended(String name, long shown) {
        return "the job at " + name + " closed the connection (it ended) after " + shown + " snapshots";
    }

    /** One line over the table: where, which process, how long, how fast now, memory. */
    static String header(String name, StatsMessage m, StatsMessage before) {
        PipelineStats s = m.stats();
        ProcessStats p = m.process();
        double rate = Double.NaN;
        if (before != null && s.elapsedMillis() > before.stats().elapsedMillis()) {
            rate = (s.sink().delivered() - before.stats().sink().delivered()) * 1000.0
                    / (s.elapsedMillis() - before.stats().elapsedMillis());
        }
        return String.format(Locale.ROOT, "%s pid %d | %.1f s | epoch %d | %d delivered, %s/s now | heap %s of %s, off-heap %s, RSS %s",
                name, p.pid(), s.elapsedMillis() / 1000.0, s.epoch(), s.sink().delivered(),
                Double.isNaN(rate) ? "-" : String.format(Locale.ROOT, "%.1f", rate),
                MemoryProbe.mib(p.heapUsedBytes()), MemoryProbe.mib(p.heapMaxBytes()),
                MemoryProbe.mib(p.offheapBytes()), MemoryProbe.mib(p.rssBytes()));
    }

    /** {@code HOST:PORT}, {@code :PORT}, {@code PORT} or {@code [v6]:PORT}. */
    private InetSocketAddress parseTarget(String text) {
        int colon = text.lastIndexOf(':');
        String host = colon < 0 ? "" : text.substring(0, colon);
        String port = colon < 0 ? text : text.substring(colon + 1);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            int p = Integer.parseInt(port);
            if (p < 1 || p > 65535) {
                throw new NumberFormatException();
            }
            return host.isEmpty() ? new InetSocketAddress(InetAddress.getLoopbackAddress(), p) : new InetSocketAddress(host, p);
        } catch (NumberFormatException e) {
            throw new ParameterException(spec.commandLine(),
                    "HOST:PORT: " + text + " (expected: e.g. localhost:7077, :7077 or 7077)");
        }
    }
}
