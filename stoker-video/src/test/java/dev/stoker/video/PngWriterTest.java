package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Random;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The PNG writer's files read back, pixel for pixel, through an independent decoder (ImageIO's). */
class PngWriterTest {
    @TempDir
    Path dir;

    @Test
    void imageIoReadsBackEveryPixelOfTheSecondFrame() throws IOException {
        int width = 37;
        int height = 23;
        long frameBytes = width * height * 3L;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pixels = arena.allocate(frameBytes * 2);
            byte[] random = new byte[(int) (frameBytes * 2)];
            new Random(42).nextBytes(random);
            MemorySegment.copy(random, 0, pixels, ValueLayout.JAVA_BYTE, 0, random.length);
            Path file = dir.resolve("frame.png");

            PngWriter.writeRgb(file, pixels, frameBytes, width, height);

            BufferedImage image = ImageIO.read(file.toFile());
            assertThat(image.getWidth()).isEqualTo(width);
            assertThat(image.getHeight()).isEqualTo(height);
            for (int y = 0; y < height; y++) {
                for (int x = 0; x < width; x++) {
                    int at = (int) frameBytes + (y * width + x) * 3;
                    int rgb = (random[at] & 0xff) << 16 | (random[at + 1] & 0xff) << 8 | random[at + 2] & 0xff;
                    assertThat(image.getRGB(x, y) & 0xffffff).as("pixel %d,%d", x, y).isEqualTo(rgb);
                }
            }
        }
    }
}
