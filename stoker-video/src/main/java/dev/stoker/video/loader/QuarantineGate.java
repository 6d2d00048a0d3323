package dev.stoker.video.loader;

import dev.stoker.pipeline.Failure;
import dev.stoker.video.FailureReason;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Where the loader's source meets its {@link Quarantine}: the source asks {@link #admit} before it hands a video
 * to fetch, and a quarantined one is skipped there (no I/O, no decode). Failures come from the pipeline's
 * failure list (polled, so this works whichever process the failing stage ran in): a file fault quarantines its
 * file at its first failure.
 *
 * <p>So that a file is counted once even when the dataset is small enough to have one file in flight twice
 * (the end of one epoch and the start of the next), the source waits, before handing on a video of a later
 * epoch, until the earlier one of the same file has settled: decoded ({@link #settled}) or failed. That needs
 * decode to run in this process, where it reports back; otherwise ({@code tracking} false) quarantine takes
 * effect from the first video handed on after the failure was reported.
 */
final class QuarantineGate {
    private static final long POLL_MILLIS = 50;
    /**
     * The longest the source waits on a file's earlier video: a safety net (a failure whose item names the file in
     * a way not matched below must not stall the loader), far above what a video takes to settle.
     */
    private static final long MAX_WAIT_NANOS = 60_000_000_000L;
    /** Recently handed-on files, to resolve a failure's item, which the pipeline cuts to 200 characters. */
    private static final int RECENT_PATHS = 4096;
    /** The pipeline keeps its first 10,000 failures; beyond that a failure may never show, so nothing waits on one. */
    private static final int FAILURE_LIST_CAP = 10_000;

    private final Quarantine quarantine;
    private final boolean tracking;
    private volatile Supplier<List<Failure>> failures = List::of;
    /** Per file in flight: the latest epoch handed on, and how many of its videos have not settled. */
    private final Map<String, long[]> inFlight = new HashMap<>();
    private final Set<String> seen = new HashSet<>();
    private final Map<String, Path> recent = new java.util.LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Path> eldest) {
            return size() > RECENT_PATHS;
        }
    };
    private long lastPollNanos;
    private long skipped;

    QuarantineGate(Quarantine quarantine, boolean tracking) {
        this.quarantine = quarantine;
        this.tracking = tracking;
    }

    Quarantine quarantine() {
        return quarantine;
    }

    /** Where failures are read from (the pipeline's, once it is built). */
    void watch(Supplier<List<Failure>> failures) {
        this.failures = failures;
    }

    /**
     * Whether the source hands {@code task} on: false when its file is quarantined. Waits while a video of the
     * same file from an earlier epoch is in flight and unsettled; an interrupt (the loader closing) ends the wait.
     */
    synchronized boolean admit(VideoTask task) {
        String path = task.entry().path().toString();
        pollIfDue(false);
        long deadline = System.nanoTime() + MAX_WAIT_NANOS;
        while (tracking && waitsOn(path, task.epoch()) && !Thread.currentThread().isInterrupted()) {
            if (System.nanoTime() - deadline > 0) {
                inFlight.remove(path);
                break;
            }
            try {
                wait(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            pollIfDue(true);
        }
        if (quarantine.contains(task.entry().path())) {
            skipped++;
            return false;
        }
        recent.put(path, task.entry().path());
        if (tracking) {
            long[] f = inFlight.computeIfAbsent(path, p -> new long[2]);
            f[0] = task.epoch();
            f[1]++;
        }
        return true;
    }

    /** {@code task}'s video was decoded (or failed to decode with {@code failure}, non-null): it has settled. */
    synchronized void settled(VideoTask task, Throwable failure) {
        if (failure != null) {
            failed(task.entry().path(), "decode", reasonOf(failure));
        }
        release(task.entry().path().toString());
        notifyAll();
    }

    /** Videos skipped because their file was quarantined. */
    synchronized long skipped() {
        return skipped;
    }

    private boolean waitsOn(String path, int epoch) {
        long[] f = inFlight.get(path);
        return f != null && f[1] > 0 && f[0] < epoch;
    }

    private void pollIfDue(boolean force) {
        long now = System.nanoTime();
        if (!force && now - lastPollNanos < POLL_MILLIS * 1_000_000L) {
            return;
        }
        lastPollNanos = now;
        List<Failure> all = failures.get();
        for (Failure f : all) {
            String stage = f.stage().startsWith("child:") ? f.stage().substring("child:".length()) : f.stage();
            String path = resolve(f.item());
            failed(Path.of(path), stage, f.reason());
            // A failure before decode ends its video's time in flight (decode reports its own, settled); once per
            // failure, which item id, time and stage name, since the list is read whole on every poll.
            boolean beforeDecode = stage.contains("fetch") || stage.contains("demux");
            if (beforeDecode && seen.add(f.itemId() + "@" + f.timestampMillis() + "@" + f.stage())) {
                release(path);
            }
        }
        if (all.size() >= FAILURE_LIST_CAP) {
            inFlight.clear(); // later failures may never show: wait on none of them
        }
    }

    /** The file a failure's item names: itself, or the recent file it is the start of when the pipeline cut it. */
    private String resolve(String item) {
        if (recent.containsKey(item) || !item.endsWith("...")) {
            return item;
        }
        String start = item.substring(0, item.length() - 3);
        String match = null;
        for (String path : recent.keySet()) {
            if (path.startsWith(start)) {
                if (match != null && !match.equals(path)) {
                    return item; // two candidates: name neither
                }
                match = path;
            }
        }
        return match != null ? match : item;
    }

    private void failed(Path path, String stage, String reason) {
        if (FailureReason.isFileFault(reason)) {
            quarantine.add(path, stage, reason);
        }
    }

    private void release(String path) {
        long[] f = inFlight.get(path);
        if (f != null && --f[1] <= 0) {
            inFlight.remove(path);
        }
    }

    private static String reasonOf(Throwable t) {
        return t instanceof Failure.Reasoned r ? r.failureReason() : t.getClass().getSimpleName();
    }
}
