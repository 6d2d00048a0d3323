package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.loader.clip.Resize;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


/**
 * Thousands of open/decode/close cycles, failing ones included, leave resident memory flat:
 * every FFmpeg object has one owner that frees it, on success and on every error path.
 */
class NativeMemoryTest {
    private static final int WARM_UP = 300;
    private static final int MEASURED = 2000;
    private static final long ALLOWED_GROWTH_BYTES = 40L << 20;

    @TempDir
    Path directory;

    @Test
    void residentMemoryStaysFlatOverThousandsOfClips() throws IOException {
        IndexedVideos.requireFfmpeg();
        byte[] h264 = Files.readAllBytes(IndexedVideos.encode(directory, "small.mp4", 48,
                List.of("-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g", "12", "-vf", "scale=64:48")));
        byte[] vp9 = Files.readAllBytes(IndexedVideos.encode(directory, "small.webm", 24,
                List.of("-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-vf", "scale=64:48")));
        byte[] truncated = Arrays.copyOf(h264, h264.length / 2);
        byte[] garbage = new byte[4096];
        Arrays.fill(garbage, (byte) 0x47);

        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            long before = 0;
            ClipDecoder decoder = new ClipDecoder();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(8L * 32 * 32 * 3);
                for (int i = 0; i < WARM_UP + MEASURED; i++) {
                    if (i == WARM_UP) {
                        System.gc();
                        before = residentBytes();
                    }
                    if (i % 25 == 0) {
                        // A fresh decoder now and then exercises decoder/sws creation and teardown too.
                        decoder.close();
                        decoder = new ClipDecoder();
                    }
                    cycle(decoder, i % 2 == 0 ? h264 : vp9, out, i);
                    if (i % 10 == 0) {
                        cycleFailing(truncated, garbage, out);
                    }
                }
            } finally {
                decoder.close();
            }
            System.gc();
            long after = residentBytes();
            System.out.printf("RSS before %d KiB, after %d KiB%n", before >> 10, after >> 10);
            assertThat(after - before).as("RSS growth over %d iterations (before %d MiB, after %d MiB)", MEASURED,
                    before >> 20, after >> 20).isLessThan(ALLOWED_GROWTH_BYTES);
        });
    }

    private static void cycle(ClipDecoder decoder, byte[] bytes, MemorySegment out, int seed) {
        try (Video video = Video.open("memory.mp4", bytes)) {
            double start = (seed % 10) * 0.1;
            Resize resize = seed % 3 == 0 ? Resize.randomCrop(40, 32, 32, seed) : Resize.stretch(32, 32);
            decoder.decode(video, new ClipRequest(ClipSpec.frames(start, 8, 1 + seed % 3), resize, out));
            if (seed % 5 == 0) {
                try {
                    decoder.decode(video, new ClipRequest(ClipSpec.frames(start, 8, 50).withPastEnd(PastEndPolicy.SKIP),
                            resize, out));
                } catch (VideoException expected) {
                    // out of range: the failure path must free as much as the success path
                }
            }
        }
    }

    private static void cycleFailing(byte[] truncated, byte[] garbage, MemorySegment out) {
        for (byte[] bytes : List.of(truncated, garbage)) {
            try (Video video = Video.open("bad.mp4", bytes); ClipDecoder decoder = new ClipDecoder()) {
                decoder.decode(video, new ClipRequest(ClipSpec.frames(0, 2, 1), Resize.stretch(32, 32), out));
            } catch (VideoException expected) {
                // the point is what stays allocated afterwards
            }
        }
    }

    static long residentBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }
}
