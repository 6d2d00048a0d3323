package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.pipeline.internal.PrivateFiles;
import dev.stoker.pipeline.subprocess.internal.SharedMemoryFile;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What Stoker shares through files is created closed to other users, and a folder others could use is refused. */
class PrivateFilesTest {
    @TempDir
    Path tmp;

    private static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void theUsersFolderIsMadeOwnerOnlyAndFoundAgain() throws IOException {
        Path folder = PrivateFiles.userFolder(tmp, "stoker-");
        assertThat(folder).isEqualTo(tmp.resolve("stoker-" + PrivateFiles.userId()));
        assertThat(mode(folder)).isEqualTo("rwx------");
        assertThat(PrivateFiles.userFolder(tmp, "stoker-")).isEqualTo(folder);
    }

    @Test
    void aFolderOpenToOthersOrALinkInItsPlaceIsRefusedNamingIt() throws IOException {
        Path open = Files.createDirectory(tmp.resolve("stoker-" + PrivateFiles.userId()),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        // Files.createDirectory applies the umask: make sure it is open as meant.
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThatThrownBy(() -> PrivateFiles.userFolder(tmp, "stoker-"))
                .isInstanceOf(IOException.class).hasMessageContaining(open.toString())
                .hasMessageContaining("open to others (rwxr-xr-x").hasMessageContaining("chmod 700");

        Path other = Files.createDirectories(tmp.resolve("elsewhere"));
        Path shared = Files.createDirectories(tmp.resolve("shared"));
        Files.createSymbolicLink(shared.resolve("stoker-" + PrivateFiles.userId()), other);
        assertThatThrownBy(() -> PrivateFiles.userFolder(shared, "stoker-"))
                .isInstanceOf(IOException.class).hasMessageContaining("not a folder (a link or a file stands there");
    }

    @Test
    void newFoldersAreOwnerOnlyAndFoldersThatExistStayAsTheyAre() throws IOException {
        Path existing = Files.createDirectories(tmp.resolve("existing"));
        Files.setPosixFilePermissions(existing, PosixFilePermissions.fromString("rwxr-x---"));
        Path deep = PrivateFiles.createFolders(existing.resolve("a/b"));
        assertThat(mode(existing)).isEqualTo("rwxr-x---");
        assertThat(mode(existing.resolve("a"))).isEqualTo("rwx------");
        assertThat(mode(deep)).isEqualTo("rwx------");
        assertThat(PrivateFiles.createFolders(deep)).isEqualTo(deep);
    }

    @Test
    void filesAreCreatedOwnerOnly() throws IOException {
        Path file = tmp.resolve("blocks.part");
        try (FileChannel channel = PrivateFiles.open(file, StandardOpenOption.CREATE_NEW)) {
            channel.write(java.nio.ByteBuffer.wrap(new byte[] {1, 2, 3}));
        }
        assertThat(mode(file)).isEqualTo("rw-------");
        assertThat(Files.size(file)).isEqualTo(3);
    }

    @Test
    void theRingsToAChildJvmAreInTheUsersFolderOwnerOnly() throws IOException {
        try (SharedMemoryFile ring = SharedMemoryFile.create(1 << 16)) {
            assertThat(ring.path().getParent().getFileName().toString()).isEqualTo("stoker-" + PrivateFiles.userId());
            assertThat(mode(ring.path().getParent())).isEqualTo("rwx------");
            assertThat(mode(ring.path())).isEqualTo("rw-------");
        }
    }
}
