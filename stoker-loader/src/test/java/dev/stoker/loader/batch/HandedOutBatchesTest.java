package dev.stoker.loader.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.HostBatchLoader;
import dev.stoker.loader.LoaderStage;
import dev.stoker.loader.ResumeTracker;
import dev.stoker.loader.dataset.EpochSampler;
import dev.stoker.loader.dataset.SamplerOptions;
import dev.stoker.loader.dataset.internal.SampleGroups;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineBuilder;
import dev.stoker.pipeline.StallReport;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.IntStream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * What becomes of the batches a loader hands to its consumer ({@link BatchPool#handOut}): held by the consumer until
 * closed (the cause a stall report names when it holds them all), traced for a leak report that names the consumer's
 * code, and read as closed once the loader closed and freed them.
 */
class HandedOutBatchesTest {

    private static final BatchShape SHAPE = BatchShape.rgb(1, 2, 4, 4);
    private static final long HANG_GUARD_SECONDS = 60;

    /** A loader over a pipeline whose one stage collates item i into a batch of one clip labelled i. */
    private static final class OneStageLoader extends HostBatchLoader {
        private OneStageLoader(Pipeline<ClipBatch> pipeline, ResumeTracker resume, BatchPool batches) {
            super(pipeline, resume, new BatchPool(SHAPE, 0), batches);
        }

        static OneStageLoader open(BatchPool batches, int items, UnaryOperator<PipelineBuilder<ClipBatch>> settings) {
            EpochSampler sampler = EpochSampler.create(SampleGroups.ungrouped(items), 1, false, SamplerOptions.defaults());
            PipelineBuilder<ClipBatch> builder = Pipeline.from(IntStream.range(0, items).boxed().toList())
                    .map("collate", (Integer item) -> collate(batches, item));
            return new OneStageLoader(settings.apply(builder).build(), new ResumeTracker(sampler, sampler.start()), batches);
        }

        @Override
        public List<? extends LoaderStage> stages() { return List.of(); }

        @Override
        public List<String> classNames() { return List.of(); }

        @Override
        public long decodedClips() { return 0; }

        @Override
        public long decodedFrames() { return 0; }

        @Override
        protected void freeWorkers() {
        }
    }

    private static ClipBatch collate(BatchPool batches, int item) {
        ClipBatch batch = batches.acquireInStage("a batch buffer");
        batch.setClip(0, new ClipInfo(Path.of(item + ".mp4"), item, new double[] {0.0}, 1));
        return batch;
    }

    @Test
    void aConsumerHoldingEveryBatchBufferIsNamedAsTheStallsCause() throws Exception {
        BatchPool batches = new BatchPool(SHAPE, 3 * SHAPE.batchBytes());
        CompletableFuture<StallReport> stall = new CompletableFuture<>();
        BlockingQueue<ClipBatch> kept = new LinkedBlockingQueue<>();
        try (OneStageLoader loader = OneStageLoader.open(batches, 20,
                b -> b.stallWatchdog(Duration.ofMillis(100), stall::complete))) {
            // The mistake under test: every batch kept, none closed, while asking for the next.
            Thread consumer = Thread.ofPlatform().name("keeper").start(() -> {
                try {
                    loader.forEach(kept::add);
                } catch (IllegalStateException closedUnderIt) {
                    // the loader closing ends the wait in next()
                }
            });
            StallReport report = stall.get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);

            assertThat(kept).hasSize(3);
            assertThat(batches.buffersHeldByConsumer()).isEqualTo(3);
            assertThat(report.stages()).singleElement().satisfies(collate -> {
                assertThat(collate.stage()).isEqualTo("collate");
                assertThat(collate.downstreamWaits()).singleElement().asString()
                        .contains("all 3 batch buffers are held by the consumer (handed out, not closed)")
                        .contains("close each batch when done with it")
                        .contains("Opening.consumerHolding(n)");
            });
            assertThat(report.text()).contains("while the consumer waits for data")
                    .contains("waits for a free buffer of BatchPool[")
                    .contains("all 3 batch buffers are held by the consumer");

            // The diagnosis is the cure: one batch closed, the next one comes.
            kept.poll().close();
            assertThat(kept.poll(HANG_GUARD_SECONDS, TimeUnit.SECONDS)).as("a batch made in the closed one's buffer")
                    .isNotNull();
            loader.close();
            consumer.join();
        }
    }

    @Test
    void aParanoidLeakReportNamesTheConsumerCodeThatDroppedTheBatch() throws Exception {
        BlockingQueue<String> warnings = new LinkedBlockingQueue<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                warnings.add(record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger log = Logger.getLogger("dev.stoker.loader.batch");
        log.addHandler(capture);
        BatchPool batches = new BatchPool(SHAPE, 3 * SHAPE.batchBytes(), LeakDetection.PARANOID);
        try (OneStageLoader loader = OneStageLoader.open(batches, 20, UnaryOperator.identity())) {
            takeOneAndDropIt(loader);
            String report = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_GUARD_SECONDS);
            // The Cleaner reports once a collection finds the batch unreachable: collect until it has. The logger is
            // the JVM's: a batch another test dropped may be reported here too, so this test's report is picked out.
            while (report == null && System.nanoTime() < deadline) {
                System.gc();
                String warning = warnings.poll(50, TimeUnit.MILLISECONDS);
                if (warning != null && warning.contains(HandedOutBatchesTest.class.getName() + ".takeOneAndDropIt(")) {
                    report = warning;
                }
            }

            assertThat(report).as("the leak report").isNotNull().startsWith("LEAK: ClipBatch");
            assertThat(batches.leaksDetected()).isEqualTo(1);
            String handedOut = report.substring(report.indexOf("Last handed out at:"), report.indexOf("Acquired at:"));
            String acquired = report.substring(report.indexOf("Acquired at:"));
            // The first frame is the consumer's call of next(): neither the pool's nor the loader's iterators.
            assertThat(handedOut.lines().filter(l -> l.strip().startsWith("at ")).findFirst()).get().asString()
                    .contains(HandedOutBatchesTest.class.getName() + ".takeOneAndDropIt(");
            assertThat(acquired).contains(HandedOutBatchesTest.class.getName() + ".collate(");
        } finally {
            log.removeHandler(capture);
        }
    }

    /** The consumer's bug the leak report must point at: a batch taken and never closed. */
    private static void takeOneAndDropIt(OneStageLoader loader) {
        assertThat(loader.iterator().next().clipCount()).isEqualTo(1);
    }

    @Test
    void aBatchHeldAcrossItsLoadersCloseReadsAsClosedEverywhereNotAsFreedMemory() {
        BatchPool batches = new BatchPool(SHAPE, 3 * SHAPE.batchBytes());
        ClipBatch kept;
        MemorySegment pixels;
        try (OneStageLoader loader = OneStageLoader.open(batches, 20, UnaryOperator.identity())) {
            kept = loader.iterator().next();
            pixels = kept.data();
            assertThat(kept.labels()).containsExactly(0);
        }

        assertThat(kept.isClosed()).isTrue();
        assertThat(kept).hasToString("ClipBatch[closed]");
        List<ThrowingCallable> reads = List.of(kept::data, kept::labels, kept::clips, kept::shape, kept::clipCount);
        for (ThrowingCallable read : reads) {
            assertThatThrownBy(read).isInstanceOf(IllegalStateException.class)
                    .hasMessage("ClipBatch is closed: its pool closed (its loader did) and freed its buffer"
                            + " (expected: a batch read before its loader closes)");
        }
        // A segment taken before fails too: the memory under it is freed.
        assertThatThrownBy(() -> pixels.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        // The geometry stays true, as the Javadoc says; closing afterwards is harmless.
        assertThat(kept.layout()).isEqualTo(SHAPE.layout());
        assertThat(kept.batchShape()).isEqualTo(SHAPE);
        kept.close();
        assertThat(kept.isClosed()).isTrue();
    }

    @Test
    void aBatchClosedByItsConsumerIsNoLongerHeldByIt() throws InterruptedException {
        try (BatchPool pool = new BatchPool(SHAPE, 2 * SHAPE.batchBytes())) {
            ClipBatch made = pool.acquire();
            assertThat(pool.buffersHeldByConsumer()).as("acquired, not handed out").isZero();
            pool.handOut(made);
            assertThat(pool.buffersHeldByConsumer()).isEqualTo(1);
            made.close();
            assertThat(pool.buffersHeldByConsumer()).isZero();
        }
    }

    @Test
    void aBatchOfAnotherPoolIsRefusedWithBothPoolsNamed() throws InterruptedException {
        try (BatchPool pool = new BatchPool(SHAPE, SHAPE.batchBytes());
             BatchPool other = new BatchPool(SHAPE, SHAPE.batchBytes());
             ClipBatch foreign = other.acquire()) {
            assertThatThrownBy(() -> pool.handOut(foreign)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is not one of BatchPool[").hasMessageContaining("(expected: a batch this pool made)");
        }
    }
}
