package dev.stoker.pipeline.subprocess;

import dev.stoker.pipeline.EpochSource;
import dev.stoker.pipeline.internal.HostedStages;
import dev.stoker.pipeline.PipelineSpec;
import dev.stoker.pipeline.StageHost;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.pipeline.subprocess.internal.ChildMain;
import dev.stoker.pipeline.subprocess.internal.ChildProcessStages;
import dev.stoker.pipeline.subprocess.internal.ChildSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongConsumer;

/**
 * Runs a pipeline's leading stages in a child JVM: {@code builder.isolate(SubprocessOptions.codecs(in, out))}.
 * The child is started with this JVM's class path and {@code --enable-native-access=ALL-UNNAMED}; items go
 * to it and results come back through two rings in a shared-memory file; if it dies (a native crash in a
 * decoder, an out-of-memory kill, {@code kill -9}), it is restarted and the items it held are sent again,
 * and an item that kills it twice is skipped as a failure ("crashed the decoder"). Immutable: every
 * setting returns a copy.
 *
 * <pre>{@code
 * Pipeline.from(paths)
 *     .map("read", ReadFactory.class, "{}", s -> s.concurrency(4))
 *     .map("parse", ParseFactory.class, "{}", s -> s.concurrency(2))
 *     .isolate(SubprocessOptions.codecs(ItemCodecs.PATH, new ClipCodec()).maxHeap("2g").cpus("2-3"))
 *     .batch(8)
 *     .build();
 * }</pre>
 */
public final class SubprocessOptions implements StageHost {
    private static final System.Logger LOG = System.getLogger("dev.stoker.pipeline.subprocess");

    /** Default data bytes of each ring: room for a few dozen typical items ahead. */
    public static final long DEFAULT_RING_BYTES = 32L << 20;
    /** Default restarts allowed before the run fails. */
    public static final int DEFAULT_CRASH_BUDGET = 10;
    /**
     * Outputs this process holds decoded ahead of the stages after the split (a hand-off of 4, and one
     * waiting for room in it): what an output codec that decodes into pooled buffers must leave room for,
     * besides the buffers the later stages and the consumer hold. Beyond it, the rings hold encoded items.
     * A decode that waits for a buffer holds none of these back: the next result is read only once every
     * decoded one has been handed on.
     */
    public static final int DECODED_OUTPUTS_AHEAD = 5;

    private ItemCodec<?> inputCodec;
    private ItemCodec<?> outputCodec;
    private String maxHeap;
    private List<String> gcFlags = List.of();
    private List<String> jvmArgs = List.of();
    private String cpus;
    private Map<String, String> environment = Map.of();
    private Duration startTimeout = Duration.ofSeconds(30);
    private Duration closeGrace = Duration.ofSeconds(2);
    private Duration reportInterval = Duration.ofMillis(200);
    private long ringBytes = DEFAULT_RING_BYTES;
    private int crashBudget = DEFAULT_CRASH_BUDGET;
    private LongConsumer onChildStart = pid -> { };

    private SubprocessOptions() { }

    /** Options for stages whose inputs (the source's items) and outputs go through these codecs. */
    public static SubprocessOptions codecs(ItemCodec<?> inputs, ItemCodec<?> outputs) {
        SubprocessOptions o = new SubprocessOptions();
        o.inputCodec = Objects.requireNonNull(inputs, "inputs");
        o.outputCodec = Objects.requireNonNull(outputs, "outputs");
        return o;
    }

    /** Options with no codecs yet: for code that sets the JVM up and lets another part name the item types. */
    public static SubprocessOptions defaults() {
        return new SubprocessOptions();
    }

    /** A copy with these codecs for the items in ({@code inputs}: the source's) and out. */
    public SubprocessOptions withCodecs(ItemCodec<?> inputs, ItemCodec<?> outputs) {
        SubprocessOptions c = copy();
        c.inputCodec = Objects.requireNonNull(inputs, "inputs");
        c.outputCodec = Objects.requireNonNull(outputs, "outputs");
        return c;
    }

    /** A copy with {@code change} applied: every setting returns one, this stays as it is. */
    private SubprocessOptions with(java.util.function.Consumer<SubprocessOptions> change) {
        SubprocessOptions c = copy();
        change.accept(c);
        return c;
    }

    private SubprocessOptions copy() {
        SubprocessOptions c = new SubprocessOptions();
        c.inputCodec = inputCodec;
        c.outputCodec = outputCodec;
        c.maxHeap = maxHeap;
        c.gcFlags = gcFlags;
        c.jvmArgs = jvmArgs;
        c.cpus = cpus;
        c.environment = environment;
        c.startTimeout = startTimeout;
        c.closeGrace = closeGrace;
        c.reportInterval = reportInterval;
        c.ringBytes = ringBytes;
        c.crashBudget = crashBudget;
        c.onChildStart = onChildStart;
        return c;
    }

    /** The child's heap limit, as {@code -Xmx} takes it ({@code "512m"}, {@code "2g"}). Default: the JVM's. */
    public SubprocessOptions maxHeap(String size) {
        if (size == null || !size.matches("\\d+[kKmMgGtT]?")) {
            throw new IllegalArgumentException("maxHeap: '" + size + "' (expected: a size as -Xmx takes it, e.g. 512m or 2g)");
        }
        return with(c -> c.maxHeap = size);
    }

    /** Garbage collector flags for the child, e.g. {@code "-XX:+UseParallelGC"}. */
    public SubprocessOptions gcFlags(String... flags) {
        return with(c -> c.gcFlags = List.of(flags));
    }

    /** Further JVM options for the child (before the class path). */
    public SubprocessOptions jvmArgs(String... args) {
        return with(c -> c.jvmArgs = List.of(args));
    }

    /**
     * The cores the child may run on, as {@code taskset -c} takes them ({@code "2-3"}, {@code "0,2,4"}). Where
     * {@code taskset} is missing the child runs unpinned and a warning says so.
     */
    public SubprocessOptions cpus(String cpuList) {
        if (cpuList == null || !cpuList.matches("\\d+(-\\d+)?(,\\d+(-\\d+)?)*")) {
            throw new IllegalArgumentException("cpus: '" + cpuList + "' (expected: a CPU list as taskset -c takes it, e.g. 2-3 or 0,2)");
        }
        return with(c -> c.cpus = cpuList);
    }

    /** Variables added to the child's environment (which is otherwise this process's). */
    public SubprocessOptions environment(Map<String, String> variables) {
        return with(c -> c.environment = Map.copyOf(variables));
    }

    /** How long the child may take to start and build its stages. Default 30 s. */
    public SubprocessOptions startTimeout(Duration timeout) {
        return with(c -> c.startTimeout = positive("startTimeout", timeout));
    }

    /** How long close waits for the child to exit before killing it. Default 2 s. */
    public SubprocessOptions closeGrace(Duration grace) {
        return with(c -> c.closeGrace = positive("closeGrace", grace));
    }

    /** How often the child sends its stats, failures and trace slices. Default 200 ms. */
    public SubprocessOptions reportInterval(Duration interval) {
        return with(c -> c.reportInterval = positive("reportInterval", interval));
    }

    /** Data bytes of each of the two rings; the largest item must fit one. Default 32 MiB. */
    public SubprocessOptions ringBytes(long bytes) {
        if (bytes < 4096) {
            throw new IllegalArgumentException("ringBytes: " + bytes + " (expected: 4096+)");
        }
        return with(c -> c.ringBytes = (bytes + 7) & ~7L);
    }

    /**
     * Restarts of the child in a row, with no input finished between them (a crash loop), allowed before iteration
     * fails with a {@code PipelineFailedException}. Default 10.
     */
    public SubprocessOptions crashBudget(int restarts) {
        if (restarts < 0) {
            throw new IllegalArgumentException("crashBudget: " + restarts + " (expected: 0+)");
        }
        return with(c -> c.crashBudget = restarts);
    }

    /** Called with the pid of every child started (the first and each restart): for logs and tests. */
    public SubprocessOptions onChildStart(LongConsumer listener) {
        return with(c -> c.onChildStart = Objects.requireNonNull(listener, "listener"));
    }

    /** The child's command line: [taskset -c CPUS] java --enable-native-access=ALL-UNNAMED [-Xmx] [flags] -cp CP ChildMain. */
    private List<String> command() {
        List<String> cmd = new ArrayList<>();
        if (cpus != null) {
            Path taskset = findOnPath("taskset");
            if (taskset != null) {
                cmd.addAll(List.of(taskset.toString(), "-c", cpus));
            } else {
                LOG.log(System.Logger.Level.WARNING, "cpus " + cpus + " ignored: taskset is not installed (util-linux); the child runs unpinned");
            }
        }
        cmd.add(javaCommand());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        if (maxHeap != null) {
            cmd.add("-Xmx" + maxHeap);
        }
        cmd.addAll(gcFlags);
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(ChildMain.class.getName());
        return cmd;
    }

    /** Where a child that died of a JVM fatal error (a native crash) wrote its hs_err report, if anywhere. */
    private java.util.Optional<Path> fatalErrorReport(long pid) {
        List<Path> candidates = new ArrayList<>();
        for (String arg : jvmArgs) {
            if (arg.startsWith("-XX:ErrorFile=")) {
                candidates.add(Path.of(arg.substring("-XX:ErrorFile=".length()).replace("%p", String.valueOf(pid))));
            }
        }
        candidates.add(Path.of("hs_err_pid" + pid + ".log"));
        candidates.add(Path.of(System.getProperty("java.io.tmpdir"), "hs_err_pid" + pid + ".log"));
        return candidates.stream().filter(Files::isRegularFile).findFirst();
    }

    private static String javaCommand() {
        return ProcessHandle.current().info().command()
                .filter(c -> Path.of(c).getFileName().toString().startsWith("java"))
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    private static Path findOnPath(String program) {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String dir : (path + ":/usr/bin:/bin").split(":")) {
            if (!dir.isEmpty()) {
                Path p = Path.of(dir, program);
                if (Files.isExecutable(p)) {
                    return p;
                }
            }
        }
        return null;
    }

    private static Duration positive(String what, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + ": " + d + " (expected: > 0)");
        }
        return d;
    }

    @Override
    public HostedStages start(PipelineSpec spec, EpochSource<?> inputs, TraceRecorder trace) {
        if (inputCodec == null || outputCodec == null) {
            throw new IllegalStateException("SubprocessOptions: no codecs (expected: SubprocessOptions.codecs(in, out) or withCodecs)");
        }
        return ChildProcessStages.start(new ChildSettings(command(), environment, inputCodec, outputCodec, ringBytes,
                startTimeout, closeGrace, reportInterval, crashBudget, onChildStart, this::fatalErrorReport), spec, inputs, trace);
    }

    @Override
    public String toString() {
        Map<String, Object> shown = new LinkedHashMap<>();
        shown.put("codecs", inputCodec == null ? "none" : inputCodec.name() + " -> " + outputCodec.name());
        shown.put("command", command());
        shown.put("environment", environment.keySet());
        shown.put("ringBytes", ringBytes);
        shown.put("crashBudget", crashBudget);
        return "SubprocessOptions" + shown;
    }
}
