package dev.stoker.pipeline;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Records a pipeline's activity in the Chrome Trace Event format, which Perfetto (ui.perfetto.dev) and
 * chrome://tracing open: one complete ("X") slice per task on its worker's thread track, with the item
 * id, and counter ("C") tracks for every queue's occupancy. Events go into a ring of
 * {@code maxEvents}, newest kept, so a long run stays small; {@link #window} also drops events older
 * than a time window when the file is written.
 *
 * <pre>{@code
 * TraceRecorder trace = TraceRecorder.create();
 * try (Pipeline<Batch> p = builder.trace(trace).build()) { ... }
 * trace.write(Path.of("run.trace.json"));
 * }</pre>
 */
public final class TraceRecorder {
    /** Default ring size: about 100 MB of JSON at most. */
    public static final int DEFAULT_MAX_EVENTS = 500_000;

    private record Event(char phase, String name, String category, long threadId, long startNanos, long durationNanos,
                         long value, String detail) { }

    private final AtomicReferenceArray<Event> ring;
    private final AtomicLong recorded = new AtomicLong();
    private final Map<Long, String> threadNames = new ConcurrentHashMap<>();
    private final long originNanos = System.nanoTime();
    private volatile long windowNanos;

    private TraceRecorder(int maxEvents) {
        if (maxEvents < 1) {
            throw new IllegalArgumentException("maxEvents: " + maxEvents + " (expected: 1+)");
        }
        this.ring = new AtomicReferenceArray<>(maxEvents);
    }

    public static TraceRecorder create() {
        return new TraceRecorder(DEFAULT_MAX_EVENTS);
    }

    /** Keeps at most the newest {@code maxEvents} events. */
    public static TraceRecorder withMaxEvents(int maxEvents) {
        return new TraceRecorder(maxEvents);
    }

    /** Writes only the events of the last {@code window} (the end of the run) to the file. */
    public TraceRecorder window(Duration window) {
        this.windowNanos = window.toNanos();
        return this;
    }

    /** Records a slice on {@code thread}'s track: a task of {@code name} on item {@code itemId}. */
    public void slice(String name, Thread thread, long startNanos, long durationNanos, long itemId) {
        slice(name, "task", thread, startNanos, durationNanos, itemId, null);
    }

    /**
     * Records a slice with a category and a free-text detail (a file name, a clip), for stages that know
     * more about their item than its id. Times are {@link System#nanoTime()} values.
     */
    public void slice(String name, String category, Thread thread, long startNanos, long durationNanos, long itemId,
                      String detail) {
        long tid = thread.threadId();
        threadNames.putIfAbsent(tid, thread.getName());
        add(new Event('X', name, category, tid, startNanos, durationNanos, itemId, detail));
    }

    /**
     * Records a slice made elsewhere (another process's recorder, see {@link #readSlices}) on a track of its
     * own: {@code threadId} and {@code threadName} name that track. Times are {@link System#nanoTime()} values,
     * which on Linux share one clock (CLOCK_MONOTONIC) across the processes of a machine.
     */
    public void foreignSlice(String name, String category, long threadId, String threadName, long startNanos,
                             long durationNanos, long itemId, String detail) {
        threadNames.putIfAbsent(threadId, threadName);
        add(new Event('X', name, category, threadId, startNanos, durationNanos, itemId, detail));
    }

    /** A slice as {@link #readSlices} hands it out. */
    public record Slice(String name, String category, long threadId, String threadName, long startNanos,
                        long durationNanos, long itemId, String detail) { }

    /**
     * Hands the slices recorded from sequence number {@code from} on (those the ring still holds) to
     * {@code sink}, oldest first, and returns the sequence number to read from next time: for shipping a
     * recorder's events elsewhere a batch at a time.
     */
    public long readSlices(long from, java.util.function.Consumer<Slice> sink) {
        long end = recorded.get();
        long start = Math.max(from, end - ring.length());
        for (long n = start; n < end; n++) {
            Event e = ring.get((int) (n % ring.length()));
            if (e != null && e.phase() == 'X') {
                sink.accept(new Slice(e.name(), e.category(), e.threadId(), threadNames.getOrDefault(e.threadId(), "?"),
                        e.startNanos(), e.durationNanos(), e.value(), e.detail()));
            }
        }
        return end;
    }

    /** Records a sample of a counter track, e.g. a queue's size. */
    public void counter(String name, long timeNanos, long value) {
        add(new Event('C', name, "queue", 0, timeNanos, 0, value, null));
    }

    private void add(Event event) {
        long n = recorded.getAndIncrement();
        ring.set((int) (n % ring.length()), event);
    }

    /** Events recorded so far, including those the ring has since overwritten. */
    public long recordedEvents() { return recorded.get(); }

    /** Events the file would hold now. */
    public int retainedEvents() {
        return snapshot().size();
    }

    private List<Event> snapshot() {
        List<Event> events = new ArrayList<>(ring.length());
        for (int i = 0; i < ring.length(); i++) {
            Event e = ring.get(i);
            if (e != null) {
                events.add(e);
            }
        }
        events.sort(Comparator.comparingLong(Event::startNanos));
        long window = windowNanos;
        if (window > 0 && !events.isEmpty()) {
            long cutoff = events.getLast().startNanos() - window;
            events.removeIf(e -> e.startNanos() + e.durationNanos() < cutoff);
        }
        return events;
    }

    public void write(Path file) {
        try (OutputStream out = Files.newOutputStream(file)) {
            writeTo(out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write trace " + file + ": " + e.getMessage(), e);
        }
    }

    public void writeTo(OutputStream out) throws IOException {
        List<Event> events = snapshot();
        try (JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeStringField("displayTimeUnit", "ms");
            g.writeArrayFieldStart("traceEvents");
            metadata(g, "process_name", 0, "stoker");
            metadata(g, "thread_name", 0, "queues");
            for (Map.Entry<Long, String> t : threadNames.entrySet()) {
                metadata(g, "thread_name", t.getKey(), t.getValue());
            }
            for (Event e : events) {
                g.writeStartObject();
                g.writeStringField("name", e.name());
                g.writeStringField("cat", e.category());
                g.writeStringField("ph", String.valueOf(e.phase()));
                g.writeNumberField("ts", micros(e.startNanos() - originNanos));
                if (e.phase() == 'X') {
                    g.writeNumberField("dur", micros(e.durationNanos()));
                }
                g.writeNumberField("pid", 1);
                g.writeNumberField("tid", e.threadId());
                g.writeObjectFieldStart("args");
                if (e.phase() == 'C') {
                    g.writeNumberField("size", e.value());
                } else {
                    g.writeNumberField("item", e.value());
                    if (e.detail() != null) {
                        g.writeStringField("detail", e.detail());
                    }
                }
                g.writeEndObject();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
    }

    private static void metadata(JsonGenerator g, String kind, long tid, String name) throws IOException {
        g.writeStartObject();
        g.writeStringField("name", kind);
        g.writeStringField("ph", "M");
        g.writeNumberField("pid", 1);
        g.writeNumberField("tid", tid);
        g.writeObjectFieldStart("args");
        g.writeStringField("name", name);
        g.writeEndObject();
        g.writeEndObject();
    }

    private static double micros(long nanos) {
        return Math.round(nanos / 100.0) / 10.0;
    }
}
