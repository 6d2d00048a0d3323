package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.loader.clip.Resize;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


/** Inputs that are not decodable videos fail with a VideoException naming the path and a reason. */
class BadInputTest {
    @TempDir
    Path directory;

    @Test
    void missingFileIsNotFound() {
        Path missing = directory.resolve("nope.mp4");
        assertFailure(() -> Video.open(missing), missing.toString(), FailureReason.NOT_FOUND);
    }

    @Test
    void aFolderWithoutFramesIsAnEmptyVideo() throws IOException {
        // A folder is a video stored as its frames (FrameFolderTest); one with no image in it has nothing to show.
        Path folder = Files.createDirectories(directory.resolve("no-frames"));
        Files.writeString(folder.resolve("README.txt"), "not a frame");
        assertFailure(() -> Video.open(folder), folder.toString(), FailureReason.EMPTY_FILE);
    }

    @Test
    void zeroByteFileIsEmpty() throws IOException {
        Path empty = Files.createFile(directory.resolve("empty.mp4"));
        assertFailure(() -> Video.open(empty), empty.toString(), FailureReason.EMPTY_FILE);
        assertFailure(() -> Video.open("bytes.mp4", new byte[0]), "bytes.mp4", FailureReason.EMPTY_FILE);
    }

    @Test
    void textFileIsAnUnknownFormat() throws IOException {
        Path text = Files.writeString(directory.resolve("notes.txt"), "hello\nthis is not a video\n".repeat(50));
        assertFailure(() -> Video.open(text), text.toString(), FailureReason.UNKNOWN_FORMAT);
    }

    @Test
    void randomBytesFail() {
        byte[] noise = new byte[100_000];
        new Random(42).nextBytes(noise);
        assertThatThrownBy(() -> Video.open("noise.mp4", noise)).isInstanceOfSatisfying(VideoException.class,
                e -> assertThat(e.reason()).isIn(FailureReason.UNKNOWN_FORMAT, FailureReason.CORRUPT));
    }

    @Test
    void audioOnlyFileHasNoVideoStream() {
        IndexedVideos.requireFfmpeg();
        Path audio = directory.resolve("tone.m4a");
        ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "aac", audio.toString());
        assertFailure(() -> Video.open(audio), audio.toString(), FailureReason.NO_VIDEO_STREAM);
    }

    @Test
    void unknownCodecIsUnsupported() throws IOException {
        IndexedVideos.requireFfmpeg();
        Path video = IndexedVideos.encode(directory, "ok.mp4", 10, List.of("-c:v", "libx264", "-preset", "ultrafast"));
        byte[] bytes = Files.readAllBytes(video);
        // Rename the avc1 sample entry (and brand) to a codec tag nobody decodes.
        byte[] tag = "avc1".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i + 4 <= bytes.length; i++) {
            if (bytes[i] == tag[0] && bytes[i + 1] == tag[1] && bytes[i + 2] == tag[2] && bytes[i + 3] == tag[3]) {
                bytes[i] = 'z';
                bytes[i + 1] = 'z';
                bytes[i + 2] = 'z';
                bytes[i + 3] = 'z';
            }
        }
        assertThatThrownBy(() -> Video.open("renamed.mp4", bytes)).isInstanceOfSatisfying(VideoException.class,
                e -> assertThat(e.reason()).isIn(FailureReason.UNSUPPORTED_CODEC, FailureReason.NO_VIDEO_STREAM));
    }

    @Test
    void clipPastTheEndWithSkipPolicyIsOutOfRange() {
        IndexedVideos.requireFfmpeg();
        Path path = IndexedVideos.encode(directory, "short.mp4", 30, List.of("-c:v", "libx264", "-preset", "ultrafast"));
        try (Video video = Video.open(path); ClipDecoder decoder = new ClipDecoder(); Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(8L * 32 * 32 * 3);
            ClipSpec spec = ClipSpec.frames(0.5, 8, 4).withPastEnd(PastEndPolicy.SKIP);
            assertFailure(() -> decoder.decode(video, new ClipRequest(spec, Resize.stretch(32, 32), out)),
                    path.toString(), FailureReason.OUT_OF_RANGE);
        }
    }

    @Test
    void tooSmallDestinationIsRejectedBeforeDecoding() {
        IndexedVideos.requireFfmpeg();
        Path path = IndexedVideos.encode(directory, "short.mp4", 30, List.of("-c:v", "libx264", "-preset", "ultrafast"));
        try (Video video = Video.open(path); ClipDecoder decoder = new ClipDecoder(); Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(100);
            assertThatThrownBy(() -> decoder.decode(video, new ClipRequest(ClipSpec.frames(0, 2, 1), Resize.stretch(32, 32), out)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("destination: 100 bytes");
        }
    }

    private static void assertFailure(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String path,
                                      FailureReason reason) {
        assertThatThrownBy(call).isInstanceOfSatisfying(VideoException.class, e -> {
            assertThat(e.reason()).isEqualTo(reason);
            assertThat(e.path()).isEqualTo(path);
            assertThat(e.getMessage()).contains(path).startsWith(reason.code());
        });
    }

    private static void ffmpeg(String... arguments) {
        try {
            List<String> command = new java.util.ArrayList<>(List.of("ffmpeg", "-nostdin", "-v", "error", "-y"));
            command.addAll(List.of(arguments));
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("ffmpeg failed: " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
