package dev.stoker.loader.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.dataset.internal.ArchiveMembers;
import dev.stoker.loader.dataset.internal.FileStamp;
import dev.stoker.loader.dataset.internal.TarIndex;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * WebDataset shards as a dataset: tar archives written by GNU tar in each of its formats are indexed from their headers,
 * their members read in place as {@code <archive>/<member>} paths, grouped into samples by key and labelled by their
 * {@code .cls}; damaged archives are refused with the byte where they fail, and a cut-short one loses only its last
 * member, which reads as truncated.
 */
class TarArchivesTest {
    @TempDir
    Path dir;
    /** Where the files archived are written, apart from the archives: a folder beside them would be a class. */
    @TempDir
    Path sources;

    /** Writes {@code files} (name, then content, alternating) under {@code dir/src} and tars them, in that order. */
    private Path tar(String archiveName, String format, String... files) throws IOException, InterruptedException {
        Path source = sources.resolve(archiveName);
        List<String> command = new ArrayList<>(List.of("tar", "--format=" + format, "-cf",
                dir.resolve(archiveName).toString(), "-C", source.toString()));
        for (int i = 0; i < files.length; i += 2) {
            Path file = source.resolve(files[i]);
            Files.createDirectories(file.getParent());
            Files.writeString(file, files[i + 1]);
            command.add(files[i]);
        }
        run(command);
        return dir.resolve(archiveName);
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process tar;
        try {
            tar = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            Assumptions.abort("GNU tar is needed to write the archives these tests read: " + e.getMessage());
            return;
        }
        String output = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(tar.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(tar.exitValue()).as("%s: %s", command, output).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"ustar", "gnu", "pax", "v7"})
    void everyFormatOfGnuTarIsIndexedAndItsMembersReadInPlace(String format) throws Exception {
        // A 130-character name: a ustar prefix, a GNU long name, a pax path; v7 cannot store it.
        String deep = "clips/" + "d".repeat(60) + "/" + "e".repeat(50) + "/k1.mp4";
        boolean longNames = !format.equals("v7");
        List<String> files = new ArrayList<>(List.of("a.mp4", "first video", "a.cls", "3", "empty.mp4", ""));
        if (longNames) {
            files.addAll(List.of(deep, "x".repeat(5000)));
        }
        Path archive = tar("s-" + format + ".tar", format, files.toArray(String[]::new));
        TarIndex index = TarIndex.read(archive);
        List<String> names = index.members().stream().map(TarIndex.Member::name).toList();
        assertThat(names).containsExactlyElementsOf(longNames ? List.of("a.mp4", "a.cls", "empty.mp4", deep)
                : List.of("a.mp4", "a.cls", "empty.mp4"));
        for (int i = 0; i < files.size(); i += 2) {
            Path member = archive.resolve(files.get(i));
            assertThat(new String(ArchiveMembers.readAllBytes(member), StandardCharsets.UTF_8)).as(files.get(i))
                    .isEqualTo(files.get(i + 1));
            assertThat(FileStamp.of(member)).isEqualTo(new FileStamp(files.get(i + 1).length(),
                    Files.getLastModifiedTime(archive).toMillis()));
        }
        assertThatThrownBy(() -> ArchiveMembers.readAllBytes(archive.resolve("b.mp4")))
                .isInstanceOf(NoSuchFileException.class).hasMessageContaining("no member b.mp4 in the tar archive");
        assertThat(ArchiveMembers.find(dir.resolve("plain.mp4"))).as("an ordinary path").isEmpty();
        assertThat(FileStamp.of(archive.resolve("b.mp4"))).isEqualTo(FileStamp.ABSENT);
    }

    @Test
    void foldersAndLinksAreNoMembersDotSlashIsDroppedAndANameAddedAgainIsTheLaterMember() throws Exception {
        Path source = sources.resolve("tree");
        Files.createDirectories(source.resolve("sub"));
        Files.writeString(source.resolve("sub/v.mp4"), "old");
        Files.createSymbolicLink(source.resolve("link.mp4"), source.resolve("sub/v.mp4"));
        Path archive = dir.resolve("t.tar");
        run(List.of("tar", "-cf", archive.toString(), "-C", source.toString(), "."));
        Files.writeString(source.resolve("sub/v.mp4"), "newer");
        run(List.of("tar", "-rf", archive.toString(), "-C", source.toString(), "./sub/v.mp4"));
        assertThat(TarIndex.read(archive).members()).singleElement()
                .satisfies(m -> assertThat(m.name()).isEqualTo("sub/v.mp4"));
        assertThat(ArchiveMembers.readAllBytes(archive.resolve("sub/v.mp4"))).asString().isEqualTo("newer");
    }

    @Test
    void aDamagedHeaderOrAFileThatIsNoTarIsRefusedNamingTheByte() throws Exception {
        Path archive = tar("d.tar", "gnu", "a.mp4", "x".repeat(700), "b.mp4", "y");
        byte[] bytes = Files.readAllBytes(archive);
        bytes[1536] ^= 0x20; // the second header (512 + 1024 for a.mp4's two blocks): its name
        Files.write(archive, bytes);
        assertThatThrownBy(() -> TarIndex.read(archive)).isInstanceOf(IOException.class)
                .hasMessageContaining(archive + ": the tar header at byte 1536: header checksum");
        Path text = dir.resolve("notes.tar");
        Files.writeString(text, "this is no archive\n".repeat(40));
        assertThatThrownBy(() -> TarIndex.read(text)).hasMessageContaining("the tar header at byte 0");
        Path shortFile = dir.resolve("short.tar");
        Files.writeString(shortFile, "tiny");
        assertThat(TarIndex.read(shortFile)).satisfies(index -> {
            assertThat(index.members()).as("cut before its first header ends").isEmpty();
            assertThat(index.complete()).isFalse();
        });
        assertThatThrownBy(() -> Dataset.open(shortFile)).hasMessageContaining("but no video in them");
        assertThatThrownBy(() -> Dataset.open(text)).isInstanceOf(InvalidDatasetException.class)
                .hasMessageContaining("notes.tar");
    }

    @Test
    void aLabelledArchiveCutShortKeepsItsWholeSamplesAndItsLastReadsAsTruncated() throws Exception {
        Path archive = tar("c.tar", "ustar", "a.mp4", "a".repeat(600), "a.cls", "0", "b.mp4", "b".repeat(3000),
                "b.cls", "1");
        byte[] whole = Files.readAllBytes(archive);
        // Cut inside b.mp4's data: b.cls is gone with the end.
        long bData = TarIndex.read(archive).members().get(2).offset();
        Files.write(archive, Arrays.copyOf(whole, (int) bData + 1000));
        assertThat(TarIndex.read(archive).members()).extracting(TarIndex.Member::name)
                .containsExactly("a.mp4", "a.cls", "b.mp4");
        Dataset dataset = Dataset.open(archive);
        assertThat(dataset.entries()).as("b stays, to fail as truncated (counted) when fetched")
                .extracting(e -> e.path().getFileName().toString()).containsExactly("a.mp4", "b.mp4");
        assertThat(ArchiveMembers.readAllBytes(archive.resolve("a.mp4"))).hasSize(600);
        assertThatThrownBy(() -> ArchiveMembers.readAllBytes(archive.resolve("b.mp4"))).isInstanceOf(EOFException.class)
                .hasMessageContaining("the archive ends 1000 bytes into this member of 3000 bytes");
        // Cut inside b.cls: b.mp4 is whole, but its sample is not (its label is gone), so it is not delivered either.
        long clsData = TarIndex.read(tar("c2.tar", "ustar", "a.mp4", "a", "a.cls", "0", "b.mp4", "b", "b.cls",
                "1".repeat(600))).members().get(3).offset();
        Path cut = dir.resolve("c2.tar");
        Files.write(cut, Arrays.copyOf(Files.readAllBytes(cut), (int) clsData + 100));
        assertThat(Dataset.open(cut).size()).isEqualTo(2);
        assertThat(ArchiveMembers.readAllBytes(cut.resolve("a.mp4"))).asString().isEqualTo("a");
        assertThatThrownBy(() -> ArchiveMembers.readAllBytes(cut.resolve("b.mp4"))).isInstanceOf(EOFException.class)
                .hasMessageContaining("the archive is cut short in this member's sample");
    }

    @Test
    void oddNamesLatin1NamesAndHiddenMembersAreReadAsTheirPathsSpellThem() throws Exception {
        Path source = sources.resolve("odd");
        Files.createDirectories(source);
        Files.writeString(source.resolve("k.mp4"), "video");
        Files.writeString(source.resolve("k.cls"), "4");
        Files.writeString(source.resolve("._k.mp4"), "a macOS resource fork");
        Path archive = dir.resolve("odd.tar");
        run(List.of("tar", "-cf", archive.toString(), "-C", source.toString(), "--transform",
                "s,^k.mp4$,c/./d//k.mp4,;s,^k.cls$,c/./d//k.cls,", "k.mp4", "k.cls", "._k.mp4"));
        assertThat(ArchiveMembers.readAllBytes(archive.resolve("c/d/k.mp4"))).asString().isEqualTo("video");
        Dataset dataset = Dataset.open(archive);
        assertThat(dataset.entries()).as("the hidden ._k.mp4 is no video").singleElement()
                .satisfies(e -> assertThat(e.path()).isEqualTo(archive.resolve("c/d/k.mp4")));
        assertThat(dataset.get(0).label()).isEqualTo(4);
        // A name that is no UTF-8 (Latin-1 é) in a pax header: read on its bytes, not refused.
        Path latin = dir.resolve("latin.tar");
        run(List.of("bash", "-c", "cd '" + source + "' && printf v > $'\\xe9.mp4' && tar --format=pax -cf '" + latin
                + "' $'\\xe9.mp4'"));
        assertThat(TarIndex.read(latin).members()).singleElement().satisfies(m -> assertThat(m.sizeBytes()).isEqualTo(1));
    }

    @ParameterizedTest
    @ValueSource(strings = {"gnu", "pax"})
    void aSparseMemberIsRefusedByName(String format) throws Exception {
        Path source = sources.resolve("sparse-" + format);
        Files.createDirectories(source);
        try (var file = new java.io.RandomAccessFile(source.resolve("holes.mp4").toFile(), "rw")) {
            file.setLength(1 << 20); // all hole
        }
        Path archive = dir.resolve("sparse-" + format + ".tar");
        run(List.of("tar", "--format=" + format, "--sparse", "-cf", archive.toString(), "-C", source.toString(),
                "holes.mp4"));
        assertThatThrownBy(() -> TarIndex.read(archive)).hasMessageContaining("a GNU sparse member");
    }

    @Test
    void anArchiveIsRememberedByItsStampUnlessItJustChanged() throws Exception {
        Path archive = tar("t.tar", "gnu", "a.mp4", "v");
        // A time ahead of this clock stands for "just now" whatever the machine's load between these lines.
        Files.setLastModifiedTime(archive, FileTime.fromMillis(System.currentTimeMillis() + 3_600_000));
        assertThat(ArchiveMembers.index(archive)).as("just written, as far as this clock can tell")
                .isNotSameAs(ArchiveMembers.index(archive));
        Files.setLastModifiedTime(archive, FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        assertThat(ArchiveMembers.index(archive)).as("settled").isSameAs(ArchiveMembers.index(archive));
        long now = System.currentTimeMillis();
        assertThat(FileStamp.settled(now - 1_000, now)).as("changed a second ago").isFalse();
    }

    @Test
    void aRewrittenArchiveIsIndexedAgain() throws Exception {
        Path archive = tar("r.tar", "gnu", "a.mp4", "one");
        FileTime past = FileTime.fromMillis(System.currentTimeMillis() - 60_000);
        Files.setLastModifiedTime(archive, past); // old enough to be remembered
        assertThat(ArchiveMembers.readAllBytes(archive.resolve("a.mp4"))).asString().isEqualTo("one");
        Files.delete(archive);
        tar("r.tar", "gnu", "a.mp4", "other", "b.mp4", "two");
        Files.setLastModifiedTime(archive, FileTime.fromMillis(past.toMillis() + 5_000));
        assertThat(ArchiveMembers.readAllBytes(archive.resolve("b.mp4"))).asString().isEqualTo("two");
        assertThat(ArchiveMembers.readAllBytes(archive.resolve("a.mp4"))).asString().isEqualTo("other");
    }

    @Test
    void aFolderOfArchivesIsADatasetOfTheirVideosInNameAndArchiveOrderLabelledByTheirCls() throws Exception {
        tar("train-001.tar", "gnu", "k3.mp4", "v3", "k3.cls", "2", "k3.json", "{}", "k4.webm", "v4", "k4.cls", "0");
        tar("train-000.tar", "pax", "clips/k1.mp4", "v1", "clips/k1.cls", " 1\n", "k2.left.mp4", "v2", "k2.cls", "0",
                "k2.txt", "a caption");
        Files.writeString(dir.resolve("README.md"), "not a shard");
        Dataset dataset = Dataset.open(dir);
        assertThat(dataset.entries()).extracting(e -> dir.relativize(e.path()).toString(), VideoEntry::label)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("train-000.tar/clips/k1.mp4", 1),
                        org.assertj.core.groups.Tuple.tuple("train-000.tar/k2.left.mp4", 0),
                        org.assertj.core.groups.Tuple.tuple("train-001.tar/k3.mp4", 2),
                        org.assertj.core.groups.Tuple.tuple("train-001.tar/k4.webm", 0));
        assertThat(dataset.classNames()).containsExactly("0", "1", "2");
        assertThat(Dataset.open(dir.resolve("train-001.tar")).size()).as("one archive alone").isEqualTo(2);
    }

    @Test
    void aBracePatternNamesArchivesInItsOrderAndEachMustBeThere() throws Exception {
        tar("train-001.tar", "gnu", "b.mp4", "v", "b.cls", "1");
        tar("train-000.tar", "gnu", "a.mp4", "v", "a.cls", "0");
        tar("extra-000.tar", "gnu", "c.mp4", "v", "c.cls", "2");
        assertThat(Dataset.open(dir.resolve("train-{000..001}.tar")).entries())
                .extracting(e -> e.path().getFileName().toString()).containsExactly("a.mp4", "b.mp4");
        Dataset dataset = Dataset.open(dir.resolve("{train,extra}-000.tar"));
        assertThat(dataset.entries()).as("in the pattern's order, not the names'")
                .extracting(e -> e.path().getFileName().toString()).containsExactly("a.mp4", "c.mp4");
        assertThat(dataset.classNames()).containsExactly("0", "1", "2");
        assertThatThrownBy(() -> Dataset.open(dir.resolve("train-{000..002}.tar"))).isInstanceOf(NoSuchFileException.class)
                .hasMessageContaining(dir.resolve("train-002.tar") + ": one of the 3 archives").hasMessageContaining("is not there");
        Files.writeString(dir.resolve("m-0.csv"), "x");
        assertThatThrownBy(() -> Dataset.open(dir.resolve("m-{0..1}.csv"))).isInstanceOf(InvalidDatasetException.class)
                .hasMessageContaining("(expected: .tar archives only)");
    }

    @Test
    void classNamesAsLabelsAreNumberedInSortedOrderAndSamplesWithoutAnyLabelAreUnlabelled() throws Exception {
        Path named = tar("named.tar", "gnu", "a.mp4", "1", "a.cls", "squash", "b.mp4", "2", "b.cls", "archery");
        Dataset dataset = Dataset.open(named);
        assertThat(dataset.classNames()).containsExactly("archery", "squash");
        assertThat(dataset.entries()).extracting(VideoEntry::label).containsExactly(1, 0);
        Path bare = tar("bare.tar", "gnu", "a.mp4", "1", "a.json", "{}", "b.mkv", "2");
        Dataset unlabelled = Dataset.open(bare);
        assertThat(unlabelled.classNames()).containsExactly("unlabelled");
        assertThat(unlabelled.entries()).extracting(VideoEntry::label).containsExactly(0, 0);
    }

    @Test
    void labelsOfMixedKindsSomeSamplesWithoutAndAnArchiveWithoutVideosAreRefused() throws Exception {
        Path mixed = tar("mixed.tar", "gnu", "a.mp4", "1", "a.cls", "3", "b.mp4", "2", "b.cls", "archery");
        assertThatThrownBy(() -> Dataset.open(mixed)).isInstanceOf(InvalidDatasetException.class)
                .hasMessageContaining(mixed.resolve("b.cls") + ": label 'archery' is a class name, but "
                        + mixed.resolve("a.cls") + " has integer label 3 (expected: one kind in a dataset)");
        Path partly = tar("partly.tar", "gnu", "a.mp4", "1", "a.cls", "3", "b.mp4", "2");
        assertThatThrownBy(() -> Dataset.open(partly)).hasMessageContaining(partly.resolve("b.mp4")
                + ": no .cls member, but " + partly.resolve("a.mp4") + " is labelled by " + partly.resolve("a.cls"));
        Path none = tar("none.tar", "gnu", "a.json", "{}", "a.txt", "x");
        assertThatThrownBy(() -> Dataset.open(none)).hasMessageContaining("1 tar archive(s) but no video in them");
        Path gz = dir.resolve("x.tar.gz");
        Files.writeString(gz, "gzip");
        assertThatThrownBy(() -> Dataset.open(gz)).hasMessageContaining("is a compressed tar archive");
    }

    @Test
    void classFoldersBesideArchivesAreATreeAndAManifestMayNameMembers() throws Exception {
        Path archive = tar("s.tar", "gnu", "a.mp4", "v", "a.cls", "0");
        Files.createDirectories(dir.resolve("archery"));
        Files.writeString(dir.resolve("archery/v.mp4"), "video");
        assertThat(Dataset.open(dir).entries()).singleElement()
                .satisfies(e -> assertThat(e.path()).isEqualTo(dir.resolve("archery/v.mp4")));
        Path manifest = dir.resolve("m.csv");
        Files.writeString(manifest, "s.tar/a.mp4,archery\n");
        VideoEntry entry = Dataset.open(manifest).get(0);
        assertThat(ArchiveMembers.find(entry.path())).hasValueSatisfying(m -> {
            assertThat(m.archive()).isEqualTo(archive);
            assertThat(m.member().name()).isEqualTo("a.mp4");
        });
    }

    @Test
    void aSamplesTxtMemberIsItsTextReadAsStoredAndACutSamplesIsNotRead() throws Exception {
        Path archive = tar("t.tar", "gnu", "a.mp4", "1", "a.txt", "a cat on a mat\n", "a.cls", "0", "b.mp4", "2",
                "b.cls", "0", "c.mp4", "3", "c.cls", "0", "c.txt", "c".repeat(2000));
        assertThat(Dataset.open(archive).entries()).extracting(VideoEntry::text).containsExactly(
                Optional.of("a cat on a mat\n"), Optional.empty(), Optional.of("c".repeat(2000)));
        // Cut inside c.txt: the sample is cut, never delivered, and its text is not read (nor refused).
        long textData = TarIndex.read(archive).members().get(7).offset();
        Files.write(archive, Arrays.copyOf(Files.readAllBytes(archive), (int) textData + 100));
        assertThat(Dataset.open(archive).entries()).extracting(VideoEntry::text)
                .containsExactly(Optional.of("a cat on a mat\n"), Optional.empty(), Optional.empty());
        Path shared = tar("s.tar", "gnu", "k.left.mp4", "1", "k.right.mp4", "2", "k.txt", "both views", "e.mp4", "3",
                "e.txt", "");
        assertThat(Dataset.open(shared).entries()).as("a sample's text is each of its videos'; an empty one is none")
                .extracting(VideoEntry::text).containsExactly(Optional.of("both views"), Optional.of("both views"),
                        Optional.empty());
        Path latin1 = tar("l.tar", "gnu", "a.mp4", "1", "a.txt", "x");
        byte[] bytes = Files.readAllBytes(latin1);
        bytes[(int) TarIndex.read(latin1).members().get(1).offset()] = (byte) 0xE9;
        Files.write(latin1, bytes);
        assertThatThrownBy(() -> Dataset.open(latin1)).isInstanceOf(InvalidDatasetException.class)
                .hasMessage(latin1.resolve("a.txt") + ": a text that is not UTF-8 (byte 0xE9 at line 1, offset 0)");
    }
}
