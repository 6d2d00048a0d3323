package dev.stoker.pipeline.subprocess.internal;

import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineBuilder;
import dev.stoker.pipeline.PipelineFailedException;
import dev.stoker.pipeline.PipelineSpec;
import dev.stoker.pipeline.internal.StageKind;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.pipeline.subprocess.ItemCodec;
import dev.stoker.pipeline.subprocess.ItemCodecs;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One run of the child JVM, from its launch line to the end of the stream (or the parent's end): maps the shared
 * file, rebuilds the stages from their factories, each wrapped by {@link LineageStage}, runs them over the items
 * ring ({@link ItemsReader}) and hands what comes out to the {@link ResultsWriter}.
 */
public final class ChildRun {
    private static final int OUTBOX_CAPACITY = 16;

    private final Wire.Launch launch;
    private final SharedRing items;
    private final SharedRing results;
    private final ItemCodec<Object> inputCodec;
    private final ResultsLimit limit;
    private final BlockingQueue<Outbound> outbox = new ArrayBlockingQueue<>(OUTBOX_CAPACITY);
    private final Map<Throwable, Long> failedInputs = new ConcurrentHashMap<>();
    private final TraceRecorder trace;
    private final ResultsWriter writer;
    private volatile Pipeline<Object> pipeline;

    private ChildRun(Wire.Launch launch) {
        this.launch = launch;
        SharedMemoryFile file = SharedMemoryFile.open(Path.of(launch.file()), launch.fileBytes());
        this.items = new SharedRing(Wire.itemsRegion(file.segment(), launch.ringBytes()));
        this.results = new SharedRing(Wire.resultsRegion(file.segment(), launch.ringBytes()));
        this.inputCodec = ItemCodecs.named(launch.inputCodec());
        this.limit = new ResultsLimit(ItemCodecs.named(launch.outputCodec()), results.maxPayloadBytes());
        this.trace = launch.trace() ? TraceRecorder.withMaxEvents(100_000) : null;
        this.writer = new ResultsWriter(results, limit.codec(), outbox, launch.reportMillis(), () -> pipeline,
                failedInputs, trace);
    }

    /** The child's main: reads the launch line from {@code stdin}, watches the parent, runs. Never returns normally. */
    public static void main(InputStream stdin) throws Exception {
        String line = ParentWatch.readLine(stdin);
        if (line == null) {
            Runtime.getRuntime().halt(0);   // the parent went away before saying anything
        }
        Wire.Launch launch = Wire.JSON.readValue(line, Wire.Launch.class);
        ParentWatch.start(stdin, launch.parentPid());
        new ChildRun(launch).run();
    }

    private void run() throws InterruptedException {
        Thread writerThread = Thread.ofPlatform().name("stoker-child-writer").unstarted(writer);
        try {
            pipeline = build(launch.spec());
        } catch (RuntimeException | Error e) {
            writer.writeNow(Wire.FATAL, 0, 0, Wire.utf8(stackTrace(e)));
            Runtime.getRuntime().halt(1);
            return;
        }
        writer.writeNow(Wire.HELLO, ProcessHandle.current().pid(), 0, new byte[0]);
        writerThread.start();
        try {
            while (true) {
                for (Object o : pipeline.nextEpoch()) {
                    Lineage out = Lineage.of(o);
                    if (out.alreadyDelivered()) {   // the parent has it from the child before
                        out.close();
                        continue;
                    }
                    outbox.put(out.outbound());
                    out.finish();
                }
                if (pipeline.endOfStream()) {
                    outbox.put(Outbound.control(Wire.END, 0, null));
                    break;
                }
                outbox.put(Outbound.control(Wire.EPOCH_END, 0, null));
            }
        } catch (PipelineFailedException e) {
            outbox.put(Outbound.control(Wire.FATAL, 0, e.getMessage()));
        }
        writerThread.join();   // sends what is left and a last report; then the child idles until the parent closes stdin
        Thread.sleep(Long.MAX_VALUE);
    }

    /**
     * The stages, each wrapped to carry its items' lineage. A batch stage gathers item lineages into a list; the
     * stages after it (map and filter only) work on groups.
     */
    @SuppressWarnings("unchecked")
    private Pipeline<Object> build(PipelineSpec spec) {
        List<PipelineSpec.Stage> stages = spec.stages();
        boolean firstIsBatch = !stages.isEmpty() && stages.getFirst().kind() == StageKind.BATCH;
        PipelineBuilder<Object> b = Pipeline.fromEpochs(new EpochTokens(new ItemsReader(items, inputCodec, outbox, firstIsBatch)));
        boolean grouped = false;
        for (int i = 0; i < stages.size(); i++) {
            PipelineSpec.Stage stage = stages.get(i);
            boolean last = i == stages.size() - 1;   // its outputs go to the results ring
            if (stage.kind() == StageKind.BATCH) {
                if (grouped) {
                    throw new IllegalArgumentException("stage '" + stage.name() + "': a second batch stage"
                            + " (expected: at most one batch stage in a child process)");
                }
                BatchConfig c = BatchConfig.parse(stage);
                b = (PipelineBuilder<Object>) (PipelineBuilder<?>) b.batch(stage.name(), c.size(), c.dropLast());
                grouped = true;
                continue;
            }
            boolean intoBatch = !last && stages.get(i + 1).kind() == StageKind.BATCH;
            b = LineageStage.add(b, stage, last, intoBatch, grouped, limit, failedInputs);
        }
        b = b.config(spec.config());
        if (trace != null) {
            b = b.trace(trace);
        }
        return b.build();
    }

    /** A batch stage's {@code {"size":N,"dropLast":B}}. */
    private record BatchConfig(int size, boolean dropLast) {
        static BatchConfig parse(PipelineSpec.Stage stage) {
            try {
                return Wire.JSON.readValue(stage.factoryConfig(), BatchConfig.class);
            } catch (IOException | RuntimeException e) {
                throw new IllegalArgumentException("stage '" + stage.name() + "' (batch) config: '" + stage.factoryConfig()
                        + "' (expected: {\"size\":N,\"dropLast\":true|false})", e);
            }
        }
    }

    private static String stackTrace(Throwable t) {
        StringWriter s = new StringWriter();
        t.printStackTrace(new PrintWriter(s));
        return s.toString();
    }
}
