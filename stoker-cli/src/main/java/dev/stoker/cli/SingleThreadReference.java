package dev.stoker.cli;

import dev.stoker.video.ClipDecoder;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.Video;
import dev.stoker.video.batch.ClipInfo;
import dev.stoker.video.loader.LoaderOptions;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The yardstick for decode efficiency: the same clips the pipeline delivered, demuxed, decoded and
 * converted one after another on one thread, with no pipeline around them. Files are read into
 * memory first and not timed (the pipeline's fetch overlaps I/O; this measures CPU work). Three
 * passes, the median counts: one pass warms the JIT and caches, and a lucky quiet moment on a shared
 * machine does not set the bar. Thread CPU time is read as well, so that an efficiency by CPU time
 * (immune to other processes' load) can be given beside the wall-clock one.
 *
 * @param clips             clips decoded per pass
 * @param clipsPerSecond    single-thread rate, wall clock
 * @param cpuSecondsPerClip CPU time one clip costs on this thread
 */
record SingleThreadReference(int clips, double clipsPerSecond, double cpuSecondsPerClip) {
    private static final int PASSES = 3;

    static SingleThreadReference measure(List<ClipInfo> delivered, LoaderOptions options) throws IOException {
        Map<Path, byte[]> files = new HashMap<>();
        for (ClipInfo c : delivered) {
            if (!files.containsKey(c.path())) {
                files.put(c.path(), Files.readAllBytes(c.path()));
            }
        }
        long clipBytes = (long) options.frames() * options.width() * options.height() * 3;
        double[] seconds = new double[PASSES];
        double[] cpuSeconds = new double[PASSES];
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        try (Arena arena = Arena.ofConfined(); ClipDecoder decoder = new ClipDecoder(options.decoderThreads(),
                options.skipNonReferenceFrames())) {
            MemorySegment destination = arena.allocate(clipBytes, 64);
            for (int pass = 0; pass < PASSES; pass++) {
                long start = System.nanoTime();
                long cpuStart = threads.getCurrentThreadCpuTime();
                int i = 0;
                for (ClipInfo c : delivered) {
                    try (Video video = Video.open(c.path().toString(), files.get(c.path()))) {
                        decoder.decode(video, new ClipRequest(options.clipAt(c.frameTimestampsSeconds()[0]),
                                options.resize(i++), destination));
                    }
                }
                seconds[pass] = (System.nanoTime() - start) / 1e9;
                cpuSeconds[pass] = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e9;
            }
        }
        java.util.Arrays.sort(seconds);
        java.util.Arrays.sort(cpuSeconds);
        return new SingleThreadReference(delivered.size(), delivered.size() / seconds[PASSES / 2],
                cpuSeconds[PASSES / 2] / delivered.size());
    }
}
