package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.clip.VideoInfo;
import dev.stoker.video.internal.FrameFolder;
import dev.stoker.video.internal.ProbeResult;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Videos stored as folders of images: listing, order, what a clip reads, and what a bad folder says. */
class FrameFolderTest {
    @TempDir
    Path dir;

    @Test
    void pngFramesDecodeToTheirExactPixelsInTheOrderOfTheNumbersInTheirNames() throws IOException {
        // Unpadded numbers: by name, frame_10 would come before frame_2.
        Path folder = Files.createDirectories(dir.resolve("v"));
        for (int i = 0; i < 12; i++) {
            FrameFolders.writeFrame(folder.resolve("frame_" + (i + 1) + ".png"), FrameFolders.rgb(i), FrameFolders.WIDTH,
                    FrameFolders.HEIGHT, FrameFolders.Kind.PNG);
        }
        Files.writeString(folder.resolve("notes.txt"), "not a frame");
        try (Video video = Video.open(folder); ClipDecoder decoder = new ClipDecoder(); Arena arena = Arena.ofConfined()) {
            VideoInfo info = video.info();
            assertThat(info.frameCount()).isEqualTo(12);
            assertThat(info.codec()).isEqualTo("png");
            assertThat(info.framesPerSecond()).isEqualTo(FrameFolder.DEFAULT_FPS);
            assertThat(info.durationSeconds()).isCloseTo(12 / FrameFolder.DEFAULT_FPS, within(1e-9));
            long frameBytes = (long) FrameFolders.WIDTH * FrameFolders.HEIGHT * 3;
            MemorySegment out = arena.allocate(12 * frameBytes);
            DecodedClip clip = decoder.decode(video, new ClipRequest(ClipSpec.frames(0, 12, 1), Resize.original(), out));
            assertThat(clip.decodedFrames()).isEqualTo(12);
            for (int i = 0; i < 12; i++) {
                assertThat(out.asSlice(i * frameBytes, frameBytes).toArray(ValueLayout.JAVA_BYTE))
                        .as("frame %d, lossless", i).isEqualTo(FrameFolders.rgb(i));
            }
        }
    }

    @Test
    void aStridedClipReadsAndDecodesItsOwnFramesOnly() throws IOException {
        Path folder = FrameFolders.write(dir.resolve("v"), "img_", 40, FrameFolders.Kind.JPEG);
        double fps = 25;
        FrameFolder frames = FrameFolder.list(folder);
        assertThat(frames.frameCount()).isEqualTo(40);
        assertThat(frames.codec()).isEqualTo("mjpeg");
        ClipSpec spec = ClipSpec.frames(10 / fps, 4, 3);
        int[] selected;
        try (Video skeleton = frames.skeleton(fps)) {
            selected = skeleton.selectClip(spec).frames();
        }
        assertThat(selected).containsExactly(10, 13, 16, 19);
        BitSet wanted = new BitSet();
        for (int f : selected) {
            wanted.set(f);
        }
        FrameFolder.Frames read = frames.read(wanted);
        long onDisk = 0;
        for (int f : selected) {
            onDisk += Files.size(frames.frame(f));
        }
        assertThat(read.bytes()).as("the clip's frames' bytes, no others").hasSize((int) onDisk);
        assertThat(read.width()).isEqualTo(FrameFolders.WIDTH);
        assertThat(read.height()).isEqualTo(FrameFolders.HEIGHT);
        try (Video video = frames.video(read, fps); ClipDecoder decoder = new ClipDecoder(); Arena arena = Arena.ofConfined()) {
            int w = 96;
            int h = 56;
            MemorySegment out = arena.allocate(4L * w * h * 3);
            DecodedClip clip = decoder.decode(video, new ClipRequest(spec, Resize.stretch(w, h), out));
            assertThat(clip.decodedFrames()).as("every frame a keyframe: nothing decoded but the clip's").isEqualTo(4);
            for (int k = 0; k < 4; k++) {
                assertThat(FrameFolders.readIndex(out, (long) k * w * h * 3, w, h)).isEqualTo(selected[k]);
            }
            assertThat(clip.ptsSeconds().get(1) - clip.ptsSeconds().get(0)).isCloseTo(3 / fps, within(1e-9));
            assertThat(clip.frameIndices()).containsExactly(10, 13, 16, 19);
        }
    }

    @Test
    void mmaction2sImgFramesAreTakenBesideItsFlowFrames() throws IOException {
        Path folder = FrameFolders.write(dir.resolve("v"), "img_", 5, FrameFolders.Kind.JPEG);
        FrameFolders.write(folder, "flow_x_", 4, FrameFolders.Kind.JPEG);
        FrameFolders.write(folder, "flow_y_", 4, FrameFolders.Kind.JPEG);
        FrameFolder frames = FrameFolder.list(folder);
        assertThat(frames.frameCount()).isEqualTo(5);
        assertThat(frames.frame(0).getFileName()).hasToString("img_00001.jpg");
    }

    @Test
    void framesOfSeveralNamesWithoutImgAreRefusedNamingThem() throws IOException {
        Path folder = FrameFolders.write(dir.resolve("v"), "left_", 3, FrameFolders.Kind.JPEG);
        FrameFolders.write(folder, "right_", 3, FrameFolders.Kind.JPEG);
        assertThatThrownBy(() -> FrameFolder.list(folder)).isInstanceOf(VideoException.class)
                .hasMessageContaining(folder.toString()).hasMessageContaining("left_#").hasMessageContaining("right_#")
                .satisfies(e -> assertThat(((VideoException) e).reason()).isEqualTo(FailureReason.UNSUPPORTED_CODEC));
    }

    @Test
    void anEmptyFolderIsAnEmptyVideoNamedInTheError() throws IOException {
        Path folder = Files.createDirectories(dir.resolve("empty"));
        Files.writeString(folder.resolve("README"), "no frames here");
        assertThatThrownBy(() -> Video.open(folder)).isInstanceOf(VideoException.class)
                .hasMessageContaining(folder.toString()).hasMessageContaining("no frames")
                .satisfies(e -> assertThat(((VideoException) e).reason()).isEqualTo(FailureReason.EMPTY_FILE));
    }

    @Test
    void aFrameOfAnotherSizeThanTheOthersReadOrNotAnImageIsAnErrorNamingIt() throws IOException {
        Path folder = FrameFolders.write(dir.resolve("v"), "img_", 6, FrameFolders.Kind.JPEG);
        FrameFolders.writeFrame(folder.resolve("img_00004.jpg"), new byte[64 * 48 * 3], 64, 48, FrameFolders.Kind.JPEG);
        Files.write(folder.resolve("img_00006.jpg"), "<html>not found</html>".getBytes());
        FrameFolder frames = FrameFolder.list(folder);
        BitSet early = new BitSet();
        early.set(0, 3);
        assertThat(frames.read(early).indices()).as("frames before the bad ones read fine").containsExactly(0, 1, 2);
        BitSet resized = new BitSet();
        resized.set(2, 4);
        assertThatThrownBy(() -> frames.read(resized)).isInstanceOf(VideoException.class)
                .hasMessageContaining("img_00004.jpg is 64x48 (expected: 192x112, as frame img_00003.jpg)");
        BitSet garbage = new BitSet();
        garbage.set(5);
        assertThatThrownBy(() -> frames.read(garbage)).isInstanceOf(VideoException.class)
                .hasMessageContaining("img_00006.jpg is not a readable JPEG image")
                .satisfies(e -> assertThat(((VideoException) e).reason()).isEqualTo(FailureReason.CORRUPT));
    }

    @Test
    void aJpegFrameCutShortIsAnErrorNamingItNotTheLastFramesPixels() throws IOException {
        // FFmpeg's JPEG decoder conceals a cut: the frame came out as the previous one's picture, or green.
        Path folder = FrameFolders.write(dir.resolve("cut"), "img_", 6, FrameFolders.Kind.JPEG);
        Path third = folder.resolve("img_00003.jpg");
        byte[] whole = Files.readAllBytes(third);
        BitSet all = new BitSet();
        all.set(0, 6);
        assertThat(FrameFolder.list(folder).read(all).indices()).as("whole frames pass").hasSize(6);
        for (int cut : new int[] {whole.length - 2, whole.length / 2, 300}) {
            Files.write(third, java.util.Arrays.copyOf(whole, cut));
            assertThatThrownBy(() -> FrameFolder.list(folder).read(all)).as("cut at %d of %d", cut, whole.length)
                    .isInstanceOf(VideoException.class).hasMessageContaining("img_00003.jpg is cut short")
                    .satisfies(e -> assertThat(((VideoException) e).reason()).isEqualTo(FailureReason.CORRUPT));
        }
        // Bytes after the end-of-image marker (some cameras append them) are no cut.
        byte[] trailing = java.util.Arrays.copyOf(whole, whole.length + 100);
        Files.write(third, trailing);
        assertThat(FrameFolder.list(folder).read(all).indices()).hasSize(6);
    }

    @Test
    void aProbeListsTheFolderAndDecodesItsFirstFrameAtTheRateGiven() throws IOException {
        Path folder = FrameFolders.write(dir.resolve("v"), "img_", 50, FrameFolders.Kind.JPEG);
        long bytes = 0;
        for (int i = 1; i <= 50; i++) {
            bytes += Files.size(folder.resolve(String.format("img_%05d.jpg", i)));
        }
        ProbeResult ok = VideoProbe.probe(folder, 25);
        assertThat(ok.ok()).as(ok.toString()).isTrue();
        assertThat(ok.frameCount()).isEqualTo(50);
        assertThat(ok.durationSeconds()).isCloseTo(2.0, within(1e-9));
        assertThat(ok.width()).isEqualTo(FrameFolders.WIDTH);
        assertThat(ok.firstGopFrames()).isEqualTo(1);
        assertThat(ok.sizeBytes()).isEqualTo(bytes);
        Files.write(folder.resolve("img_00001.jpg"), new byte[] {(byte) 0xFF, (byte) 0xD8, (byte) 0xFF, (byte) 0xDA, 0, 4});
        ProbeResult damaged = VideoProbe.probe(folder, 25);
        assertThat(damaged.reason()).isEqualTo(FailureReason.CORRUPT);
        assertThat(damaged.detail()).contains("img_00001.jpg is not a readable JPEG image");
    }

    @Test
    void jpegAndPngFramesInOneFolderAreRefused() throws IOException {
        Path folder = FrameFolders.write(dir.resolve("v"), "img_", 2, FrameFolders.Kind.JPEG);
        FrameFolders.writeFrame(folder.resolve("img_00003.png"), FrameFolders.rgb(2), FrameFolders.WIDTH,
                FrameFolders.HEIGHT, FrameFolders.Kind.PNG);
        assertThatThrownBy(() -> FrameFolder.list(folder)).isInstanceOf(VideoException.class)
                .hasMessageContaining("both JPEG and PNG frames");
    }
}
