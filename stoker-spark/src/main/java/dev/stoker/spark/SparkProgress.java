package dev.stoker.spark;

import dev.stoker.store.ingest.IngestListener;
import java.io.Serializable;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.AccumulableInfo;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorMetricsUpdate;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.util.LongAccumulator;
import scala.Tuple4;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A Spark ingest's progress as the driver sees it, in the local ingest's terms (sources done and failed, payload
 * written): every task counts its sources into accumulators; finished tasks' counts are merged by Spark (a failed
 * attempt's are not), running tasks' are read from the executors' heartbeats, so the sum moves while partitions
 * run. Each change is handed to a consumer (the {@code stoker ingest --spark} progress bar, or a log line).
 */
final class SparkProgress extends SparkListener {
    /** Where an ingest stands: {@code done} of {@code sources} (failed ones included), payload bytes written. */
    public record Snapshot(int sources, int done, int failed, long bytesWritten) {
    }

    /** A task's side: the accumulators its {@link IngestListener} adds to. Serializable, into the task's closure. */
    record Counters(LongAccumulator done, LongAccumulator failed, LongAccumulator bytes) implements Serializable {
        IngestListener listener(IngestListener inner) {
            return new IngestListener() {
                @Override
                public void sourceDone(int sourceIndex, boolean sourceFailed, long payloadBytes) {
                    inner.sourceDone(sourceIndex, sourceFailed, payloadBytes);
                    done.add(1);
                    if (sourceFailed) {
                        failed.add(1);
                    }
                    bytes.add(payloadBytes);
                }
            };
        }
    }

    private final Counters counters;
    private final int sources;
    private final int alreadyDone;
    private final Consumer<Snapshot> consumer;
    /** Running tasks' latest counts, by task id: {done, failed, bytes}. */
    private final Map<Long, long[]> running = new HashMap<>();
    /** Tasks that ended: a heartbeat taken while one ran may arrive after its end, and must not count it again. */
    private final Set<Long> ended = new HashSet<>();

    /**
     * Counts into new accumulators of {@code spark}; {@code alreadyDone} sources are in partitions committed by an
     * earlier run (done before this one starts).
     */
    SparkProgress(SparkContext spark, int sources, int alreadyDone, Consumer<Snapshot> consumer) {
        this.counters = new Counters(spark.longAccumulator("stoker.sourcesDone"), spark.longAccumulator("stoker.sourcesFailed"),
                spark.longAccumulator("stoker.bytesWritten"));
        this.sources = sources;
        this.alreadyDone = alreadyDone;
        this.consumer = consumer;
    }

    Counters counters() { return counters; }

    /** Where the ingest stands now. */
    public synchronized Snapshot snapshot() {
        long done = alreadyDone + counters.done().value();
        long failed = counters.failed().value();
        long bytes = counters.bytes().value();
        for (long[] task : running.values()) {
            done += task[0];
            failed += task[1];
            bytes += task[2];
        }
        // A partition both of whose attempts finished (one lost the commit) counts twice: never past the whole.
        return new Snapshot(sources, (int) Math.min(sources, done), (int) Math.min(sources, failed), bytes);
    }

    @Override
    public void onExecutorMetricsUpdate(SparkListenerExecutorMetricsUpdate update) {
        boolean changed = false;
        synchronized (this) {
            for (Tuple4<Object, Object, Object, scala.collection.immutable.Seq<AccumulableInfo>> task
                    : CollectionConverters.asJava(update.accumUpdates())) {
                long taskId = (Long) task._1();
                if (ended.contains(taskId)) {
                    continue;
                }
                long[] counts = running.computeIfAbsent(taskId, id -> new long[3]);
                for (AccumulableInfo info : CollectionConverters.asJava(task._4())) {
                    int slot = slot(info.id());
                    if (slot >= 0 && info.update().isDefined()) {
                        long value = ((Number) info.update().get()).longValue();
                        changed |= counts[slot] != value;
                        counts[slot] = value;
                    }
                }
            }
        }
        if (changed) {
            consumer.accept(snapshot());
        }
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd end) {
        synchronized (this) {
            // A success's counts are merged into the accumulators by now; a failure's are dropped with it.
            running.remove(end.taskInfo().taskId());
            ended.add(end.taskInfo().taskId());
        }
        consumer.accept(snapshot());
    }

    private int slot(long accumulatorId) {
        List<LongAccumulator> all = List.of(counters.done(), counters.failed(), counters.bytes());
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).id() == accumulatorId) {
                return i;
            }
        }
        return -1;
    }
}
