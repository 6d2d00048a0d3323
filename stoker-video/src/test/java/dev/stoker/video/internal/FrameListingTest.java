package dev.stoker.video.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.video.FrameFolders;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A folder's frames by name: numbered ones kept as their pattern, others by name, relisted when the folder changes. */
class FrameListingTest {
    @TempDir
    Path dir;

    @Test
    void framesNumberedWithoutAGapAreAPatternPaddedOrNot() throws IOException {
        Path padded = FrameFolders.write(dir.resolve("padded"), "img_", 12, FrameFolders.Kind.JPEG);
        assertThat(FrameListing.of(padded)).isInstanceOfSatisfying(FrameListing.Numbered.class, n -> {
            assertThat(n).isEqualTo(new FrameListing.Numbered("img_", 5, ".jpg", 1, 12, FrameImage.JPEG));
            assertThat(n.name(11)).isEqualTo("img_00012.jpg");
        });
        Path unpadded = Files.createDirectories(dir.resolve("unpadded"));
        for (int i = 0; i < 12; i++) {
            Files.write(unpadded.resolve(i + ".png"), new byte[] {1});
        }
        FrameListing listing = FrameListing.of(unpadded);
        assertThat(listing).isInstanceOf(FrameListing.Numbered.class);
        assertThat(listing.name(2)).isEqualTo("2.png");
        assertThat(listing.name(11)).isEqualTo("11.png");
        assertThat(listing.kind()).isEqualTo(FrameImage.PNG);
    }

    @Test
    void framesWithAGapAreKeptByNameInNumberOrder() throws IOException {
        Path folder = Files.createDirectories(dir.resolve("gap"));
        for (String name : new String[] {"f_3.jpg", "f_1.jpg", "f_10.jpg", "f_2.jpg"}) {
            Files.write(folder.resolve(name), new byte[] {1});
        }
        FrameListing listing = FrameListing.of(folder);
        assertThat(listing).isInstanceOf(FrameListing.Named.class);
        assertThat(listing.count()).isEqualTo(4);
        assertThat(listing.name(0)).isEqualTo("f_1.jpg");
        assertThat(listing.name(3)).isEqualTo("f_10.jpg");
    }

    @Test
    void aListingIsRememberedUntilTheFolderChanges() throws IOException {
        Path folder = FrameFolders.write(dir.resolve("v"), "img_", 5, FrameFolders.Kind.JPEG);
        FileTime before = Files.getLastModifiedTime(folder);
        FrameListing first = FrameListing.of(folder);
        assertThat(FrameListing.of(folder)).as("remembered").isSameAs(first);
        FrameFolders.write(folder, "img_", 7, FrameFolders.Kind.JPEG); // frames 6 and 7 added
        // A coarse clock could leave the folder's time as it was: move it on, as any later change would.
        Files.setLastModifiedTime(folder, FileTime.from(before.toInstant().plusSeconds(1)));
        assertThat(FrameListing.of(folder).count()).isEqualTo(7);
    }
}
