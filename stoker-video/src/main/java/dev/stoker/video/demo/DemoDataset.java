package dev.stoker.video.demo;

import static org.bytedeco.ffmpeg.global.avutil.AV_LOG_ERROR;
import static org.bytedeco.ffmpeg.global.avutil.av_log_get_level;
import static org.bytedeco.ffmpeg.global.avutil.av_log_set_level;

import dev.stoker.loader.dataset.internal.SplitMix;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.regex.Pattern;

/**
 * Generates a deterministic, Kinetics-shaped video dataset ({@code ROOT/<class>/<clip>.mp4}) with the
 * FFmpeg libraries bundled in the jar; no {@code ffmpeg} binary is needed.
 *
 * <p>Most clips are H.264 (Constrained Baseline, libopenh264) in MP4 with 250-frame GOPs, as in
 * Kinetics; one in ten is VP8 in WebM and one in fifty AV1 in Matroska. Every file is written under a
 * hidden temporary name and renamed when complete, and {@value #MARKER} is written last, so a dataset
 * with a matching marker is complete and an interrupted run leaves no half files behind.
 */
public final class DemoDataset {

    /** Name of the completion marker at the dataset root. */
    public static final String MARKER = "dataset.json";

    /** Bumped whenever generated content changes, so cached datasets from older versions are redone. */
    public static final int GENERATOR_VERSION = 1;

    private static final Pattern GENERATED_NAME = Pattern.compile("[a-z_]+_\\d{3}\\.(mp4|webm|mkv)|\\..*\\.tmp");

    private DemoDataset() {
    }

    /** Returns {@code cacheDir} holding the full-size dataset, generating it only if missing or incomplete. */
    public static Path ensure(Path cacheDir) throws IOException {
        return ensure(cacheDir, DemoSpec.kineticsLike());
    }

    /** Returns {@code cacheDir} holding the dataset {@code spec} describes, generating it only if needed. */
    public static Path ensure(Path cacheDir, DemoSpec spec) throws IOException {
        if (isComplete(cacheDir, spec)) {
            return cacheDir;
        }
        return create(cacheDir, spec);
    }

    /** Generates the full-size dataset into {@code dir}, replacing an earlier demo dataset there. */
    public static Path create(Path dir) throws IOException {
        return create(dir, DemoSpec.kineticsLike());
    }

    /**
     * Generates the dataset {@code spec} describes into {@code dir}, one file per core at a time. Files
     * of an earlier demo dataset that this spec does not produce are removed; other files are left alone.
     */
    public static Path create(Path dir, DemoSpec spec) throws IOException {
        return create(dir, spec, clipsWritten -> { });
    }

    /**
     * As {@link #create(Path, DemoSpec)}, reporting progress: {@code clipsWritten} receives the number of
     * finished clips after each one, from generator threads (so it must be thread-safe).
     */
    public static Path create(Path dir, DemoSpec spec, IntConsumer clipsWritten) throws IOException {
        Objects.requireNonNull(clipsWritten, "clipsWritten");
        Files.createDirectories(dir);
        Files.deleteIfExists(dir.resolve(MARKER));
        List<Path> targets = new ArrayList<>(spec.clipCount());
        for (int c = 0; c < spec.classCount(); c++) {
            Files.createDirectories(dir.resolve(spec.classNames().get(c)));
            for (int j = 0; j < spec.clipsPerClass(); j++) {
                targets.add(clipPath(dir, spec, c, j));
            }
        }
        removeStale(dir, new HashSet<>(targets));
        int threads = Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), targets.size()));
        // Encoders log banners and rate-control advice at info/warning level on every file; errors still show.
        // The level is process-wide, hence restored afterwards.
        int logLevel = av_log_get_level();
        av_log_set_level(Math.min(logLevel, AV_LOG_ERROR));
        try (ExecutorService executor = Executors.newFixedThreadPool(threads, DemoDataset::workerThread)) {
            List<Future<?>> futures = new ArrayList<>(targets.size());
            AtomicInteger written = new AtomicInteger();
            for (int i = 0; i < targets.size(); i++) {
                int clip = i;
                futures.add(executor.submit(() -> {
                    writeClip(targets.get(clip), spec, clip);
                    clipsWritten.accept(written.incrementAndGet());
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                await(future, futures);
            }
        } finally {
            av_log_set_level(logLevel);
        }
        writeAtomically(dir.resolve(MARKER), marker(spec));
        return dir;
    }

    /** True when {@code dir} holds a complete dataset made by this generator version from {@code spec}. */
    public static boolean isComplete(Path dir, DemoSpec spec) {
        Path marker = dir.resolve(MARKER);
        try {
            if (!Files.isRegularFile(marker)
                    || !Files.readString(marker, StandardCharsets.UTF_8).strip().equals(marker(spec).strip())) {
                return false;
            }
        } catch (IOException e) {
            return false;
        }
        for (int c = 0; c < spec.classCount(); c++) {
            for (int j = 0; j < spec.clipsPerClass(); j++) {
                if (!Files.isRegularFile(clipPath(dir, spec, c, j))) {
                    return false;
                }
            }
        }
        return true;
    }

    static Path clipPath(Path dir, DemoSpec spec, int classIndex, int clipInClass) {
        String className = spec.classNames().get(classIndex);
        int global = classIndex * spec.clipsPerClass() + clipInClass;
        String name = String.format(Locale.ROOT, "%s_%03d.%s", className, clipInClass,
                DemoCodec.forClip(global).extension);
        return dir.resolve(className).resolve(name);
    }

    private static void writeClip(Path target, DemoSpec spec, int globalIndex) throws IOException {
        int classIndex = globalIndex / spec.clipsPerClass();
        SyntheticScene scene = new SyntheticScene(classIndex, SplitMix.mix(spec.seed(), globalIndex),
                spec.width(), spec.height(), spec.framesPerSecond());
        Path temp = target.resolveSibling("." + target.getFileName() + ".tmp");
        try {
            ClipEncoder.encode(temp, DemoCodec.forClip(globalIndex), scene, spec);
            move(temp, target);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private static void removeStale(Path dir, Set<Path> keep) throws IOException {
        for (String className : DemoSpec.CLASS_NAMES) {
            Path classDir = dir.resolve(className);
            if (!Files.isDirectory(classDir)) {
                continue;
            }
            try (DirectoryStream<Path> files = Files.newDirectoryStream(classDir)) {
                for (Path file : files) {
                    if (!keep.contains(file) && GENERATED_NAME.matcher(file.getFileName().toString()).matches()) {
                        Files.deleteIfExists(file);
                    }
                }
            }
        }
    }

    static String marker(DemoSpec spec) {
        return String.format(Locale.ROOT, """
                {
                  "generator": "stoker-demo",
                  "generatorVersion": %d,
                  "classes": %d,
                  "clipsPerClass": %d,
                  "clipSeconds": %s,
                  "width": %d,
                  "height": %d,
                  "framesPerSecond": %d,
                  "seed": %d
                }
                """, GENERATOR_VERSION, spec.classCount(), spec.clipsPerClass(), Double.toString(spec.clipSeconds()),
                spec.width(), spec.height(), spec.framesPerSecond(), spec.seed());
    }

    private static void writeAtomically(Path target, String content) throws IOException {
        Path temp = target.resolveSibling("." + target.getFileName() + ".tmp");
        Files.writeString(temp, content, StandardCharsets.UTF_8);
        move(temp, target);
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static void await(Future<?> future, List<Future<?>> all) throws IOException {
        try {
            future.get();
        } catch (InterruptedException e) {
            all.forEach(f -> f.cancel(true));
            Thread.currentThread().interrupt();
            throw new IOException("demo dataset generation interrupted", e);
        } catch (ExecutionException e) {
            all.forEach(f -> f.cancel(true));
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof UncheckedIOException io) {
                throw io.getCause();
            }
            throw new IOException("demo dataset generation failed: " + cause, cause);
        }
    }

    private static Thread workerThread(Runnable task) {
        Thread thread = new Thread(task, "stoker-demo-encoder");
        thread.setDaemon(true);
        return thread;
    }
}
