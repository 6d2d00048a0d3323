package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import dev.stoker.video.demo.MixedVideos;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;


/**
 * FFmpeg's warm-up on a background thread while six other threads start on FFmpeg at the same moment (what
 * a loader's demux and decode workers do as it opens): each waits for the warm-up, nothing hangs, every
 * thread decodes its clip. Classes initialise once per JVM, so each attempt is a fresh child JVM; the
 * interleaving differs from run to run, so there are several. (Without the waiting, 30 such runs did not
 * deadlock here either: the deadlock seen once before needs a rarer interleaving, so this guards the
 * mechanism's working, not that proof.)
 */
class FfmpegNativesWarmUpTest {
    private static final int ATTEMPTS = 4;
    private static final int THREADS = 6;

    @Test
    void threadsStartingOnFfmpegDuringTheWarmUpWaitForItAndDecode() throws Exception {
        // Videos of several codecs (the ffmpeg command's and the demo generator's), each thread its own file where
        // there are enough.
        List<Path> mixed = MixedVideos.files();
        List<String> files = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            files.add(mixed.get(i % mixed.size()).toString());
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                    System.getProperty("java.class.path"), Child.class.getName()));
            command.addAll(files);
            Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
            boolean exited = child.waitFor(60, TimeUnit.SECONDS);
            String output = new String(child.getInputStream().readAllBytes());
            if (!exited) {
                child.destroyForcibly();
            }
            assertThat(exited).as("attempt %d ended within 60 s (a deadlock hangs it): %s", attempt, output).isTrue();
            assertThat(child.exitValue()).as("attempt %d: %s", attempt, output).isZero();
            assertThat(output).contains("decoded " + THREADS + " clips");
        }
    }

    /** Starts the warm-up, then at once one thread per file opens it and decodes a clip. */
    static final class Child {
        public static void main(String[] files) throws Exception {
            CountDownLatch go = new CountDownLatch(1);
            AtomicInteger decoded = new AtomicInteger();
            List<Thread> threads = new ArrayList<>();
            for (String file : files) {
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        go.await();
                        try (Video video = Video.open(Path.of(file)); ClipDecoder decoder = new ClipDecoder();
                             Arena arena = Arena.ofConfined()) {
                            MemorySegment out = arena.allocate(2 * 32 * 32 * 3);
                            DecodedClip clip = decoder.decode(video, new ClipRequest(ClipSpec.frames(0, 2, 1),
                                    Resize.centerCrop(32, 32, 32), out));
                            if (clip.frameCount() == 2) {
                                decoded.incrementAndGet();
                            }
                        }
                    } catch (Exception e) {
                        System.out.println(file + ": " + e);
                    }
                }));
            }
            FfmpegNatives.warmUpInBackground();
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            System.out.println("decoded " + decoded.get() + " clips");
        }
    }
}
