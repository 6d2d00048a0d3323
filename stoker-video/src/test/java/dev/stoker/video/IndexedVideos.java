package dev.stoker.video;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.stoker.video.demo.MixedVideos;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Test videos whose frames carry their own index: bit i of the frame number is a 16x16 block,
 * white for 1 and black for 0, in a row on a grey background. Large blocks survive lossy coding
 * and scaling, so decoding any frame tells exactly which frame it is.
 */
final class IndexedVideos {
    static final int WIDTH = 192;
    static final int HEIGHT = 112;
    static final int BITS = 10;
    static final int BLOCK = 16;
    static final int ROW_Y = 48;

    private IndexedVideos() {
    }

    /** Skips the calling test when the ffmpeg CLI (used only to make test videos) is missing. */
    static void requireFfmpeg() {
        assumeTrue(ffmpegAvailable(), "the ffmpeg CLI is not on PATH; it is needed only to generate test videos");
    }

    static boolean ffmpegAvailable() { return MixedVideos.ffmpegAvailable(); }

    /** Raw RGB24 frame {@code index}. */
    static byte[] frame(int index) {
        byte[] rgb = new byte[WIDTH * HEIGHT * 3];
        java.util.Arrays.fill(rgb, (byte) 128);
        // A diagonal gradient elsewhere keeps the encoder honest (not a flat picture).
        for (int y = 0; y < HEIGHT; y++) {
            for (int x = 0; x < WIDTH; x++) {
                if (y < ROW_Y - 8 || y >= ROW_Y + BLOCK + 8) {
                    int v = (x + y + index * 3) & 0xFF;
                    int p = (y * WIDTH + x) * 3;
                    rgb[p] = (byte) v;
                    rgb[p + 1] = (byte) (255 - v);
                    rgb[p + 2] = (byte) (v / 2);
                }
            }
        }
        for (int bit = 0; bit < BITS; bit++) {
            byte value = ((index >> bit) & 1) == 1 ? (byte) 255 : 0;
            int x0 = 8 + bit * (BLOCK + 2);
            for (int y = ROW_Y; y < ROW_Y + BLOCK; y++) {
                for (int x = x0; x < x0 + BLOCK; x++) {
                    int p = (y * WIDTH + x) * 3;
                    rgb[p] = value;
                    rgb[p + 1] = value;
                    rgb[p + 2] = value;
                }
            }
        }
        return rgb;
    }

    /**
     * Encodes {@code frames} indexed frames at 30 fps with the given output options. Extra input
     * options (before -i) can set e.g. a different rate.
     */
    static Path encode(Path directory, String name, int frames, List<String> outputOptions) {
        Path out = directory.resolve(name);
        if (Files.exists(out)) {
            return out;
        }
        List<String> command = new ArrayList<>(List.of("ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "rawvideo",
                "-pix_fmt", "rgb24", "-s", WIDTH + "x" + HEIGHT, "-r", "30", "-i", "-"));
        command.addAll(outputOptions);
        command.add(out.toString());
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(directory.resolve(name + ".log").toFile()).start();
            try (OutputStream stdin = process.getOutputStream()) {
                for (int i = 0; i < frames; i++) {
                    stdin.write(frame(i));
                }
            }
            if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("ffmpeg failed for " + name + ": "
                        + Files.readString(directory.resolve(name + ".log")));
            }
        } catch (IOException e) {
            throw new IllegalStateException("ffmpeg failed for " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return out;
    }

    /** Reads the index back from an RGB24 frame of any size scaled from the full picture. */
    static int readIndex(MemorySegment pixels, long offset, int width, int height) {
        int index = 0;
        for (int bit = 0; bit < BITS; bit++) {
            double cx = 8 + bit * (BLOCK + 2) + BLOCK / 2.0;
            double cy = ROW_Y + BLOCK / 2.0;
            int x = (int) (cx * width / WIDTH);
            int y = (int) (cy * height / HEIGHT);
            long p = offset + ((long) y * width + x) * 3;
            int luma = (Byte.toUnsignedInt(pixels.get(ValueLayout.JAVA_BYTE, p))
                    + Byte.toUnsignedInt(pixels.get(ValueLayout.JAVA_BYTE, p + 1))
                    + Byte.toUnsignedInt(pixels.get(ValueLayout.JAVA_BYTE, p + 2))) / 3;
            if (luma > 128) {
                index |= 1 << bit;
            }
        }
        return index;
    }
}
