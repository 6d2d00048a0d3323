package dev.stoker.video.loader.internal;

import dev.stoker.loader.VideoStage;
import dev.stoker.pipeline.Failure;
import dev.stoker.video.FailureReason;
import dev.stoker.video.loader.Quarantine;
import java.nio.file.Path;
import java.util.BitSet;
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
 * epoch, until the earlier one of the same file has settled: decoded or failed; once a file's video has decoded,
 * its later videos no longer wait. Decoding in this process, decode
 * reports each video's end ({@link #settled}); decoding in a child JVM whose clips come back one by one
 * ({@code --split-after decode} or {@code convert}), the last clip of a video arriving settles it
 * ({@link #clipArrived}), and a failure in any stage does once its report is polled. When batches are made in the
 * child ({@link Tracking#NONE}), a settled video's clips may wait there for the next epoch's, so nothing waits:
 * quarantine takes effect from the first video handed on after the failure was reported.
 */
public final class QuarantineGate {
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

    /** How the gate learns that a video in flight settled. */
    public enum Tracking {
        /** Decode runs in this process and reports each video's end. */
        LOCAL_DECODE,
        /** Decode runs in a child; its clips come back one by one, the last one of a video settling it. */
        CHILD_CLIPS,
        /** Batches are made in a child: not tracked. */
        NONE
    }

    private final Quarantine quarantine;
    private final boolean tracking;
    /** Decode runs in a child: a failure of any stage (decode, convert included) ends a video's time in flight. */
    private final boolean decodeInChild;
    private volatile Supplier<List<Failure>> failures = List::of;
    /** Per file in flight: the latest epoch handed on, and how many of its videos have not settled. */
    private final Map<String, long[]> inFlight = new HashMap<>();
    /**
     * The dataset entries (by index) decoded once in this run: their file is no file fault, so a later epoch's video
     * of one goes on without waiting for its predecessor. Without this, a dataset smaller than what is in flight
     * (the 100-video demo at 16 cores: over 100 items) started every epoch head-of-line blocked, and the source
     * stalled the feed (seen on an H100 machine: decode's input queue empty 42% of the time). A file damaged past
     * where its first clip decoded may then fail in two epochs at once and be listed twice; it is quarantined once.
     */
    private final BitSet decodedOnce = new BitSet();
    private final Set<String> seen = new HashSet<>();
    private final Map<String, Path> recent = new java.util.LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Path> eldest) {
            return size() > RECENT_PATHS;
        }
    };
    private long lastPollNanos;
    private long skipped;

    public QuarantineGate(Quarantine quarantine, Tracking tracking) {
        this.quarantine = quarantine;
        this.tracking = tracking != Tracking.NONE;
        this.decodeInChild = tracking == Tracking.CHILD_CLIPS;
    }

    public Quarantine quarantine() { return quarantine; }

    /** Where failures are read from (the pipeline's, once it is built). */
    public void watch(Supplier<List<Failure>> failures) {
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
        while (tracking && !decodedOnce.get(task.index()) && waitsOn(path, task.epoch())
                && !Thread.currentThread().isInterrupted()) {
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
    public synchronized void settled(VideoTask task, Throwable failure) {
        if (failure != null) {
            failed(task.entry().path(), VideoStage.DECODE.stageName(), reasonOf(failure));
        } else {
            decodedOnce.set(task.index());
        }
        release(task.entry().path().toString());
        notifyAll();
    }

    /** A clip came out of the child JVM that decodes: the last of its video settles the video. */
    public synchronized void clipArrived(LoadedClip clip) {
        if (clip.clip() == clip.clipsOfVideo() - 1) {
            decodedOnce.set(clip.task().index());
            release(clip.task().entry().path().toString());
            notifyAll();
        }
    }

    /** Videos skipped because their file was quarantined. */
    public synchronized long skipped() { return skipped; }

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
            // A failure before decode ends its video's time in flight (decode here reports its own, settled; decode
            // in a child does not); once per failure, which item id, time and stage name, since the list is read
            // whole on every poll.
            boolean ends = decodeInChild || stage.contains(VideoStage.FETCH.stageName())
                    || stage.contains(VideoStage.DEMUX.stageName());
            if (ends && seen.add(f.itemId() + "@" + f.timestampMillis() + "@" + f.stage())) {
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
