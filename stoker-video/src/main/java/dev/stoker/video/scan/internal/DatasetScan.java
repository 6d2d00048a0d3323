package dev.stoker.video.scan.internal;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.video.internal.ProbeResult;
import dev.stoker.video.VideoProbe;
import dev.stoker.video.internal.FrameFolder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Opens every video of a dataset once ({@link VideoProbe}) on a few threads, to find the files a long training job
 * would fail on before it starts:
 * <pre>{@code
 * ScanReport report = DatasetScan.of(Dataset.open(root)).workers(2).run();
 * report.quarantineInto(Quarantine.open(Path.of("bad.jsonl")));   // training skips them from the start
 * }</pre>
 *
 * <p>Few workers by default: FFmpeg opens decoders of codecs that are not thread-safe to initialise under one global
 * lock, and stream probing takes it too, so more threads than cores mostly wait on it and on the disk.
 */
public final class DatasetScan {
    /** Workers when none are given: two, or one on a single core. */
    public static final int DEFAULT_WORKERS = Math.min(2, Runtime.getRuntime().availableProcessors());

    private final Dataset dataset;
    private int workers = DEFAULT_WORKERS;
    private Consumer<ProbeResult> listener = r -> { };
    private double frameFolderFps = FrameFolder.DEFAULT_FPS;

    private DatasetScan(Dataset dataset) {
        this.dataset = dataset;
    }

    /** A scan of {@code dataset}'s files (each once, however many entries name it). */
    public static DatasetScan of(Dataset dataset) {
        return new DatasetScan(dataset);
    }

    /** Probe on {@code workers} threads (default {@link #DEFAULT_WORKERS}). */
    public DatasetScan workers(int workers) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers: " + workers + " (expected: 1+)");
        }
        this.workers = workers;
        return this;
    }

    /** The rate videos stored as folders of frames play at (default {@link FrameFolder#DEFAULT_FPS}). */
    public DatasetScan frameFolderFps(double fps) {
        if (!(fps >= LoaderOptions.Clip.MIN_FRAME_FOLDER_FPS && fps <= LoaderOptions.Clip.MAX_FRAME_FOLDER_FPS)) {
            throw new IllegalArgumentException("frameFolderFps: " + fps + " (expected: " + LoaderOptions.Clip.MIN_FRAME_FOLDER_FPS
                    + " to " + LoaderOptions.Clip.MAX_FRAME_FOLDER_FPS + ")");
        }
        this.frameFolderFps = fps;
        return this;
    }

    /** Called with each file's result as it is done, on the worker's thread (a progress bar). */
    public DatasetScan onEachFile(Consumer<ProbeResult> listener) {
        this.listener = listener;
        return this;
    }

    /** The files the scan opens, in dataset order. */
    public List<Path> files() {
        Set<Path> files = new LinkedHashSet<>();
        for (VideoEntry e : dataset.entries()) {
            files.add(e.path());
        }
        return List.copyOf(files);
    }

    /**
     * Probes every file and returns the results in dataset order. An interrupt stops the workers (each finishes the
     * file it is on) and is rethrown.
     */
    public ScanReport run() throws InterruptedException {
        List<Path> files = files();
        long start = System.nanoTime();
        AtomicInteger thread = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(workers, Math.max(1, files.size())),
                r -> Thread.ofPlatform().daemon().name("stoker-scan-" + thread.incrementAndGet()).unstarted(r));
        try {
            List<Future<ProbeResult>> futures = new ArrayList<>(files.size());
            for (Path file : files) {
                futures.add(pool.submit(() -> {
                    ProbeResult result = VideoProbe.probe(file, frameFolderFps);
                    listener.accept(result);
                    return result;
                }));
            }
            List<ProbeResult> results = new ArrayList<>(files.size());
            for (Future<ProbeResult> f : futures) {
                results.add(f.get());
            }
            return new ScanReport(results, workers, System.nanoTime() - start);
        } catch (ExecutionException e) {
            throw new IllegalStateException("scan: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }
}
