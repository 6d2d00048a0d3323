package dev.stoker.store.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a copy folder remembers of its objects' versions: each copy recorded as it lands (a run killed before closing
 * loses none), read back with the last record of a path winning, and a version it cannot keep forgotten, not misread.
 */
class CopiedVersionsTest {
    @TempDir
    Path folder;

    @Test
    void aCopyIsRecordedAsItLandsAndANewVersionOfItsSizeIsNotCurrent() throws Exception {
        Path copy = Files.createDirectories(folder.resolve("cls")).resolve("a.mp4");
        Files.writeString(copy, "old!");
        CopiedVersions killed = CopiedVersions.of(folder);
        killed.copied(copy, new BlobStore.Head(4, "\"v1\""));
        // not closed: as a run killed with SIGKILL leaves it
        CopiedVersions next = CopiedVersions.of(folder);
        assertThat(next.current(copy, new BlobStore.Head(4, "\"v1\""))).isTrue();
        assertThat(next.current(copy, new BlobStore.Head(4, "\"v2\""))).as("rewritten at the same size").isFalse();
        next.copied(copy, new BlobStore.Head(4, "\"v2\""));
        next.close();
        assertThat(Files.readString(folder.resolve(CopiedVersions.FILE))).isEqualTo("\"v2\"\tcls/a.mp4\n");
    }

    @Test
    void aCopyWithoutAVersionIsJudgedBySizeAndALineBreakNeverSplitsARecord() throws Exception {
        Path plain = Files.createDirectories(folder.resolve("cls")).resolve("a");
        Files.writeString(plain, "1234");
        Path odd = folder.resolve("cls/a\rb.mp4");
        Files.writeString(odd, "5678");
        try (CopiedVersions versions = CopiedVersions.of(folder)) {
            versions.copied(plain, new BlobStore.Head(4, "\"p\""));
            versions.copied(odd, new BlobStore.Head(4, "\"o\""));
        }
        CopiedVersions read = CopiedVersions.of(folder);
        assertThat(read.current(plain, new BlobStore.Head(4, "\"p\""))).isTrue();
        assertThat(read.current(odd, new BlobStore.Head(4, "\"x\""))).as("not recorded: judged by its size").isTrue();
        assertThat(read.current(plain, new BlobStore.Head(5, null))).as("another size").isFalse();
        assertThat(read.current(plain, new BlobStore.Head(4, null))).as("a store without versions").isTrue();
        read.close();
        assertThat(CopiedVersions.of(folder).current(plain, new BlobStore.Head(4, "\"q\""))).as("forgotten, not stale")
                .isTrue();
    }
}
