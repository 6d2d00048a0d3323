package dev.stoker.video.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.video.FrameFolders;
import dev.stoker.video.VideoException;
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
        FileTime settled = ago(folder, 60);
        FrameListing first = FrameListing.of(folder);
        assertThat(FrameListing.of(folder)).as("remembered").isSameAs(first);
        FrameFolders.write(folder, "img_", 7, FrameFolders.Kind.JPEG); // frames 6 and 7 added
        Files.setLastModifiedTime(folder, FileTime.from(settled.toInstant().plusSeconds(1)));
        assertThat(FrameListing.of(folder).count()).isEqualTo(7);
    }

    @Test
    void aFolderChangedInTheLastSecondsIsListedEveryTime() throws IOException {
        // Its clock may not have ticked since: what changes next could leave its time as it is. A time ahead of this
        // clock stands for "just now" (a file server's clock may run ahead) whatever the machine's load between these
        // lines.
        Path folder = FrameFolders.write(dir.resolve("fresh"), "img_", 3, FrameFolders.Kind.JPEG);
        Files.setLastModifiedTime(folder, FileTime.fromMillis(System.currentTimeMillis() + 3_600_000));
        assertThat(FrameListing.of(folder)).isNotSameAs(FrameListing.of(folder));
    }

    @Test
    void aFrameFoundGoneForgetsTheListingThoughTheFolderKeptItsTime() throws IOException {
        Path folder = FrameFolders.write(dir.resolve("coarse"), "img_", 6, FrameFolders.Kind.JPEG);
        FileTime settled = ago(folder, 60);
        FrameFolder frames = FrameFolder.list(folder);
        Files.delete(folder.resolve("img_00006.jpg"));
        Files.setLastModifiedTime(folder, settled); // a clock that did not tick
        assertThat(FrameListing.of(folder).count()).as("still remembered").isEqualTo(6);
        java.util.BitSet last = new java.util.BitSet();
        last.set(5);
        assertThatThrownBy(() -> frames.read(last)).isInstanceOf(VideoException.class).hasMessageContaining("is gone");
        assertThat(FrameListing.of(folder).count()).as("listed again").isEqualTo(5);
    }

    /** Sets {@code folder}'s time {@code seconds} back, past the racy window: its listing may be remembered. */
    private static FileTime ago(Path folder, int seconds) throws IOException {
        FileTime time = FileTime.fromMillis(System.currentTimeMillis() - seconds * 1000L);
        Files.setLastModifiedTime(folder, time);
        return time;
    }
}
