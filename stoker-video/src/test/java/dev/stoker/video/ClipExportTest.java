package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


/** The clip export writes one PNG per frame, upright, and a clip.json describing them. */
class ClipExportTest {
    @TempDir
    Path output;

    @Test
    void writesFramesAndDescription() throws IOException {
        Path video = SampleVideos.file("decord_rot90.mov");
        DecodedClip clip = ClipExport.export(video, ClipSpec.frames(0, 3, 1), Resize.original(), output);
        assertThat(clip.frameCount()).isEqualTo(3);
        for (int k = 0; k < 3; k++) {
            BufferedImage image = ImageIO.read(output.resolve(String.format("frame_%04d.png", k)).toFile());
            assertThat(image.getWidth()).isEqualTo(320);
            assertThat(image.getHeight()).isEqualTo(568);
        }
        String json = Files.readString(output.resolve("clip.json"));
        assertThat(json).contains("\"rotationDegrees\": 90", "\"frameIndices\": [0, 1, 2]", "\"framesDecoded\": ",
                "\"ptsSeconds\": [0.000000, 0.033333, 0.066667]", "\"codedWidth\": 568");
    }
}
