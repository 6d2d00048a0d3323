package dev.stoker.loader.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatasetLoadingTest {

    @TempDir
    Path dir;

    private Path touch(String relative) throws IOException {
        Path file = dir.resolve(relative);
        Files.createDirectories(file.getParent());
        return Files.writeString(file, "x");
    }

    @Test
    void directoryTreeLabelsBySortedClassNameAndSortsVideos() throws IOException {
        touch("tai_chi/b.mp4");
        touch("tai_chi/a.mp4");
        touch("archery/z.webm");
        touch("archery/.partial.mp4.tmp");
        touch(".cache/ignored.mp4");
        touch("README.txt");
        Files.createDirectories(dir.resolve("empty_class"));

        Dataset dataset = Dataset.open(dir);

        assertThat(dataset.classNames()).containsExactly("archery", "empty_class", "tai_chi");
        assertThat(dataset.entries()).extracting(e -> dir.relativize(e.path()).toString())
                .containsExactly("archery/z.webm", "tai_chi/a.mp4", "tai_chi/b.mp4");
        assertThat(dataset.entries()).extracting(VideoEntry::label).containsExactly(0, 2, 2);
        assertThat(dataset.get(1).className()).isEqualTo("tai_chi");
        assertThat(dataset.get(1).startSeconds()).isEmpty();
    }

    @Test
    void directoryTreeWithoutVideosIsAnError() throws IOException {
        assertThatThrownBy(() -> Dataset.open(dir))
                .isInstanceOf(InvalidDatasetException.class).hasMessageContaining("no class folders");
        Files.createDirectories(dir.resolve("archery"));
        assertThatThrownBy(() -> Dataset.open(dir))
                .isInstanceOf(InvalidDatasetException.class).hasMessageContaining("no videos in them");
    }

    @Test
    void aFolderOfImagesInAClassFolderIsAVideoStoredAsItsFramesBesideVideoFiles() throws IOException {
        // Videos: a file, and folders holding frames. Not videos: hidden and NAS-thumbnail folders, one of notes, one empty.
        for (String file : List.of("archery/b.mp4", "archery/a_frames/img_00001.jpg", "bowling/v1/00001.png",
                "bowling/.thumbnails/x.jpg", "bowling/@eaDir/SYNOPHOTO_THUMB_M.jpg", "bowling/annotations/labels.txt")) {
            touch(file);
        }
        Files.createDirectories(dir.resolve("bowling/empty"));

        Dataset dataset = Dataset.open(dir);

        assertThat(dataset.entries()).extracting(e -> dir.relativize(e.path()).toString())
                .containsExactly("archery/a_frames", "archery/b.mp4", "bowling/v1");
        assertThat(dataset.entries()).extracting(VideoEntry::label).containsExactly(0, 0, 1);
    }

    @Test
    void csvWithHeaderClassNamesRangesQuotesAndComments() throws IOException {
        Path absolute = touch("elsewhere/abs.mp4").toAbsolutePath();
        Path csv = Files.writeString(dir.resolve("train.csv"), """
                path,label,start,end
                # a comment, then a blank line

                videos/a.mp4,tai_chi,1.5,3.0
                "videos/with, comma.mp4",archery,,
                %s, archery ,0,10
                """.formatted(absolute));

        Dataset dataset = Dataset.open(csv);

        assertThat(dataset.classNames()).containsExactly("archery", "tai_chi");
        assertThat(dataset.entries()).hasSize(3);
        VideoEntry first = dataset.get(0);
        assertThat(first.path()).isEqualTo(dir.toAbsolutePath().resolve("videos/a.mp4"));
        assertThat(first.label()).isEqualTo(1);
        assertThat(first.startSeconds()).isEqualTo(OptionalDouble.of(1.5));
        assertThat(first.endSeconds()).isEqualTo(OptionalDouble.of(3.0));
        assertThat(dataset.get(1).path().getFileName().toString()).isEqualTo("with, comma.mp4");
        assertThat(dataset.get(1).startSeconds()).isEmpty();
        assertThat(dataset.get(2).path()).isEqualTo(absolute);
        assertThat(dataset.get(2).className()).isEqualTo("archery");
    }

    @Test
    void aHeaderNamingItsColumnsOtherwiseIsAHeaderNotAClass() throws IOException {
        // Read as a sample, video,class made a class "class" between cat and dog: dog's label shifted to 2.
        for (String header : List.of("video,class", "filename,class", "Path,Label", "file,category", "url,action")) {
            Path csv = Files.writeString(dir.resolve("headed.csv"), header + "\na.mp4,cat\nb.mov,dog\n");
            Dataset dataset = Dataset.open(csv);
            assertThat(dataset.classNames()).as(header).containsExactly("cat", "dog");
            assertThat(dataset.entries()).as(header).extracting(VideoEntry::label).containsExactly(0, 1);
        }
    }

    @Test
    void aDanglingLinkOrAPipeInAClassFolderIsListedToFailByNameNotLeftOutUnseen() throws Exception {
        touch("tree/cats/a.mp4");
        Path dangling = Files.createSymbolicLink(dir.resolve("tree/cats/b.mp4"), dir.resolve("gone.mp4"));
        Path pipe = dir.resolve("tree/cats/c.mp4");
        assertThat(new ProcessBuilder("mkfifo", pipe.toString()).start().waitFor()).isZero();
        Files.createSymbolicLink(dir.resolve("tree/dangling_class"), dir.resolve("no_such_folder"));
        Dataset dataset = Dataset.open(dir.resolve("tree"));
        assertThat(dataset.classNames()).containsExactly("cats");
        assertThat(dataset.entries()).extracting(VideoEntry::path)
                .containsExactly(dir.resolve("tree/cats/a.mp4"), dangling, pipe);
    }

    @Test
    void csvWithIntegerLabelsKeepsThem() throws IOException {
        Path csv = Files.writeString(dir.resolve("val.csv"), "a.mp4,3\nb.mp4,0\n");
        Dataset dataset = Dataset.fromCsv(csv);
        assertThat(dataset.entries()).extracting(VideoEntry::label).containsExactly(3, 0);
        assertThat(dataset.classNames()).containsExactly("0", "1", "2", "3");
        assertThat(dataset.get(0).className()).isEqualTo("3");
    }

    @Test
    void csvErrorsNameTheLine() throws IOException {
        assertCsvError("a.mp4,1\nb.mp4\n", "line 2: 1 fields (expected: path,label or path,label,start,end[,text], or");
        assertCsvError("a.mp4,1,2.5\n", "line 1: 3 fields (expected: path,label or path,label,start,end[,text], or"
                + " path,label,text under a header line path,label,text; quote a text that holds a comma)");
        Path latin1 = dir.resolve("latin1.csv");
        Files.write(latin1, "a.mp4,1\nb.mp4,1,,,caf\u00e9\n".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        assertThatThrownBy(() -> Dataset.open(latin1)).isInstanceOf(InvalidDatasetException.class)
                .hasMessage(latin1 + ": a manifest that is not UTF-8 (byte 0xE9 at line 2, offset 21)");
        Path crOnly = dir.resolve("cr.csv");
        Files.write(crOnly, "a.mp4,1\rb.mp4,1\r\nc.mp4,1,,,\u00e9t\u00e9\r\nd.mp4,1,,,caf\u00e9".getBytes(
                java.nio.charset.StandardCharsets.ISO_8859_1));
        assertThatThrownBy(() -> Dataset.open(crOnly)).as("lines as the loader counts them: \\r, \\r\\n, \\n")
                .hasMessage(crOnly + ": a manifest that is not UTF-8 (byte 0xE9 at line 3, offset 27)");
        assertCsvError("path,label,text\na.mp4,1,a cat,sleeping\n", "line 2: 4 fields (expected: path,label,text, as"
                + " the header says");
        assertCsvError("a.mp4,1,,,a,b\n", "line 1: 6 fields");
        assertCsvError("a.mp4,1\nb.mp4,archery\n", "line 2: label 'archery' is a class name, but line 1 has integer");
        assertCsvError("a.mp4,1,x,2\n", "line 1: start 'x' (expected: seconds");
        assertCsvError("a.mp4,1,5,2\n", "line 1: end 2 (expected: > start 5.0)");
        assertCsvError("a.mp4,-1\n", "line 1: label -1 (expected: 0..");
        assertCsvError("a.mp4,\n", "line 1: label is empty");
        assertCsvError("\"a.mp4,1\n", "line 1: unterminated quote");
        assertCsvError("path,label\n", "lists no videos");
    }

    @Test
    void aCsvsFifthFieldOrAThirdUnderATextHeaderIsTheSamplesTextAndAnEmptyOneIsNone() throws IOException {
        Path ranged = Files.writeString(dir.resolve("captions.csv"), """
                a.mp4,0,,,a dog catches a frisbee
                a.mp4,0,2,4,"the dog, now running: ""fast"" "
                b.mp4,1,0,3,
                c.mp4,1
                """);
        Dataset dataset = Dataset.open(ranged);
        assertThat(dataset.entries()).extracting(VideoEntry::text).containsExactly(
                Optional.of("a dog catches a frisbee"), Optional.of("the dog, now running: \"fast\""), Optional.empty(),
                Optional.empty());
        assertThat(dataset.get(1).startSeconds()).isEqualTo(OptionalDouble.of(2));
        Path headed = Files.writeString(dir.resolve("headed.csv"), "path,label,text\na.mp4,0,\u00e9t\u00e9 \u6f22\n");
        assertThat(Dataset.open(headed).get(0).text()).hasValue("\u00e9t\u00e9 \u6f22");
        assertThat(Dataset.open(headed).get(0).startSeconds()).isEmpty();
        Path caption = Files.writeString(dir.resolve("caption.csv"), "Path,Label,Caption\na.mp4,0,a dog\n");
        assertThat(Dataset.open(caption).get(0).text()).hasValue("a dog");
    }

    @Test
    void aTxtBesideAVideoInATreeIsItsTextAndNoVideoWhileAnUnpairedTxtStaysAVideo() throws IOException {
        touch("archery/a.mp4");
        Files.writeString(dir.resolve("archery/a.txt"), "a man draws a bow\n");
        touch("archery/b.mkv");
        touch("archery/frames/img_00001.jpg");
        Files.write(dir.resolve("archery/frames.txt"), "\u00e9lan".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        touch("archery/notes.txt");
        touch("archery/twice.txt");
        touch("archery/twice.TXT");
        touch("bowling/c.webm");
        Files.writeString(dir.resolve("bowling/c.txt"), "");

        Dataset dataset = Dataset.open(dir);

        assertThat(dataset.entries()).as("a text pairs with a video, never with another text")
                .extracting(e -> dir.relativize(e.path()).toString()).containsExactly("archery/a.mp4", "archery/b.mkv",
                        "archery/frames", "archery/notes.txt", "archery/twice.TXT", "archery/twice.txt", "bowling/c.webm");
        assertThat(dataset.entries()).extracting(VideoEntry::text).containsExactly(Optional.of("a man draws a bow\n"),
                Optional.empty(), Optional.of("\u00e9lan"), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty());
        Files.write(dir.resolve("archery/b.txt"), new byte[] {(byte) 0xC3, (byte) 0x28});
        assertThatThrownBy(() -> Dataset.open(dir)).isInstanceOf(InvalidDatasetException.class)
                .hasMessageContaining(dir.resolve("archery/b.txt") + ": a text that is not UTF-8");
        Files.write(dir.resolve("archery/b.txt"), new byte[SampleText.MAX_BYTES + 1]);
        assertThatThrownBy(() -> Dataset.open(dir)).isInstanceOf(InvalidDatasetException.class)
                .hasMessageContaining(dir.resolve("archery/b.txt") + ": a text of 1048577 bytes (expected: a caption");
    }

    private void assertCsvError(String content, String message) throws IOException {
        Path csv = Files.writeString(dir.resolve("bad.csv"), content);
        assertThatThrownBy(() -> Dataset.open(csv))
                .isInstanceOf(InvalidDatasetException.class)
                .hasMessageStartingWith(csv.toString())
                .hasMessageContaining(message);
    }

    @Test
    void openRejectsOtherFilesAndMissingPaths() throws IOException {
        Path text = touch("list.txt");
        assertThatThrownBy(() -> Dataset.open(text)).isInstanceOf(InvalidDatasetException.class)
                .hasMessageContaining("expected: a directory ROOT/<class>/<video>, a .csv manifest, or .tar archives");
        assertThatThrownBy(() -> Dataset.open(dir.resolve("missing.csv"))).isInstanceOf(IOException.class)
                .hasMessageContaining("missing.csv");
    }

    @Test
    void datasetRejectsLabelsOutsideClassNames() {
        assertThatThrownBy(() -> new Dataset(List.of(new VideoEntry(Path.of("a.mp4"), 2, "x")), List.of("x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("label of a.mp4: 2 (expected: 0..0)");
    }
}
