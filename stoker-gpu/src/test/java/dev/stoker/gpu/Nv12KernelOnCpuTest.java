package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_RANGE_JPEG;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_YUV420P;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_YUVJ420P;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.Resize;
import dev.stoker.video.ClipDecoder;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.internal.FrameWriter;
import dev.stoker.video.Video;
import dev.stoker.video.demo.MixedVideos;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.bytedeco.ffmpeg.avutil.AVFrame;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The GPU kernel's arithmetic without a GPU: its CUDA source ({@code src/main/cuda/nv12_to_rgb.cu}) compiled
 * for the CPU with a small harness, one call per output pixel, fed the very planes the decoder produced and
 * the crop window {@link Resize#sourceWindow} gives, must draw what the CPU path's swscale draws within
 * {@link PixelTolerance}, in both layouts. This checks resampling, crop, colour matrix and range, not the
 * PTX or the driver. The clip kernel ({@code nv12_to_rgb_clip}, a clip's frames in one launch) must draw each slot
 * exactly as the one-frame kernel does. Skipped, saying why, where g++ is missing.
 */
@Timeout(120)
class Nv12KernelOnCpuTest {
    @TempDir
    static Path dir;
    static Path harness;

    @BeforeAll
    static void compileTheKernelForTheCpu() throws IOException, InterruptedException {
        Path cuda = Path.of("src/main/cuda").toAbsolutePath();
        assumeTrue(Files.isRegularFile(cuda.resolve("nv12_to_rgb.cu")), "kernel source not found at " + cuda);
        assumeTrue(run(List.of("g++", "--version")) == 0, "needs g++ to compile the kernel's source for the CPU");
        Path source = dir.resolve("nv12_host_harness.cpp");
        try (InputStream in = Nv12KernelOnCpuTest.class.getResourceAsStream("nv12_host_harness.cpp")) {
            Files.copy(in, source, StandardCopyOption.REPLACE_EXISTING);
        }
        harness = dir.resolve("harness");
        assertThat(run(List.of("g++", "-O2", "-I", cuda.toString(), "-o", harness.toString(), source.toString())))
                .as("g++ compiles the kernel source with the host harness (see " + dir.resolve("g++.log") + ")").isZero();
    }

    private static int run(List<String> command) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve(Path.of(command.getFirst()).getFileName() + ".log").toFile()).start();
        } catch (IOException e) {
            return -1; // not installed
        }
        return p.waitFor();
    }

    /** One decoded frame's NV12 planes, the window and colour the GPU path would use. */
    record Planes(int width, int height, Resize.Window window, int colour, Path y, Path uv) { }

    /** Shared samples: file, output size, short side, crop seed (-1: centre crop). */
    private static final Object[][] SHARED = {
            {"mmaction2_test_340x256.mp4", 112, 112, -1L},
            {"mmaction2_ntu_S001C001P001R001A001_1080p.avi", 112, 112, -1L},
            {"mdn_flower_960x540.mp4", 112, 128, 7L},
            {"libwebm_bbb_480p_vp9_opus_1s.webm", 160, 160, 3L},
            {"decord_flipping_a_pancake.mkv", 224, 256, -1L},
            {"torchcodec_h265_128x128.mp4", 200, 200, -1L},
            {"torchcodec_bt709_full_range.mp4", 112, 112, -1L}};

    /** Sizes, short sides and crop seeds for the videos made here (short side 0: a random resized crop). */
    private static final Object[][] MADE = {{112, 112, -1L}, {112, 128, 7L}, {160, 160, 3L}, {96, 96, -1L}};

    /**
     * The demo generator's videos always (a scene like camera footage, H.264 and VP8), the shared ones where they
     * are. Not the ffmpeg command's test patterns: their one-pixel lines, scaled down, differ by up to 4.9 levels on
     * average (h264_bframes.mp4 at 112x112), past the tolerance measured on real footage.
     */
    static Stream<Arguments> videos() {
        List<Path> eightBit = MixedVideos.files().stream()
                .filter(p -> p.getFileName().toString().matches(".*_\\d{3}\\.(mp4|webm)")).toList();
        List<Arguments> rows = new ArrayList<>();
        for (int i = 0; i < eightBit.size(); i++) {
            Object[] size = MADE[i % MADE.length];
            Path p = eightBit.get(i);
            rows.add(Arguments.of(Named.of(p.getFileName().toString(), p), size[0], size[1], size[2]));
            rows.add(Arguments.of(Named.of(p.getFileName().toString(), p), 112, 0, 5L + i));   // a random resized crop
        }
        String property = System.getProperty("stoker.shared.videos");
        for (Object[] row : SHARED) {
            if (property != null && Files.isRegularFile(Path.of(property, (String) row[0]))) {
                rows.add(Arguments.of(Named.of((String) row[0], Path.of(property, (String) row[0])), row[1], row[2], row[3]));
            }
        }
        return rows.stream();
    }

    @ParameterizedTest(name = "{0} {1}x{1} short side {2} seed {3}")
    @MethodSource("videos")
    void theKernelDrawsWhatTheCpuPathDrawsWithinTheTolerance(Path file, int size, int shortSide, long cropSeed)
            throws Exception {
        Resize resize = shortSide == 0 ? Resize.randomResizedCrop(size, size, 0.3, cropSeed)
                : cropSeed < 0 ? Resize.centerCrop(shortSide, size, size) : Resize.randomCrop(shortSide, size, size, cropSeed);
        String name = file.getFileName().toString();
        try (Video video = Video.open(file); Arena arena = Arena.ofConfined()) {
            ClipSpec spec = ClipSpec.frames(video.frameTimeSeconds(Math.min(10, video.frameCount() - 1)), 1, 1);
            MemorySegment cpu = arena.allocate(3L * size * size);
            try (ClipDecoder decoder = new ClipDecoder()) {
                decoder.decode(video, new ClipRequest(spec, resize, cpu));
            }
            List<Planes> planes = new ArrayList<>();
            FrameWriter dump = (frame, target) -> planes.add(planes(frame, target));
            try (ClipDecoder decoder = new ClipDecoder(true, null, dump)) {
                decoder.decode(video, new ClipRequest(spec, resize, arena.allocate(3L * size * size)));
            }
            Planes p = planes.getFirst();
            MemorySegment packed = draw(p, size, false, false, false);
            PixelTolerance.assertWithin(packed, cpu, name);
            MemorySegment planar = draw(p, size, true, false, false);
            theClipKernelDrawsEachSlotAsTheFrameKernel(p, size, packed, planar);
            aMirroredDestinationDrawsTheFrameRightToLeft(p, size, packed, planar);
            for (int i = 0; i < size * size; i++) {
                for (int c = 0; c < 3; c++) {
                    if (planar.get(ValueLayout.JAVA_BYTE, (long) c * size * size + i)
                            != packed.get(ValueLayout.JAVA_BYTE, 3L * i + c)) {
                        throw new AssertionError("planar output differs from packed at pixel " + i + " channel " + c);
                    }
                }
            }
        }
    }

    private static Planes planes(AVFrame frame, FrameWriter.Target target) {
        int format = frame.format();
        assumeTrue(format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P, "not 4:2:0 8-bit: " + format);
        int w = frame.width();
        int h = frame.height();
        int cw = (w + 1) / 2;
        int ch = (h + 1) / 2;
        byte[] y = new byte[w * h];
        byte[] uv = new byte[2 * cw * ch];
        MemorySegment yPlane = plane(frame, 0, h);
        MemorySegment uPlane = plane(frame, 1, ch);
        MemorySegment vPlane = plane(frame, 2, ch);
        for (int row = 0; row < h; row++) {
            MemorySegment.copy(yPlane, ValueLayout.JAVA_BYTE, (long) row * frame.linesize(0), y, row * w, w);
        }
        for (int row = 0; row < ch; row++) {
            for (int x = 0; x < cw; x++) {
                uv[2 * (row * cw + x)] = uPlane.get(ValueLayout.JAVA_BYTE, (long) row * frame.linesize(1) + x);
                uv[2 * (row * cw + x) + 1] = vPlane.get(ValueLayout.JAVA_BYTE, (long) row * frame.linesize(2) + x);
            }
        }
        // NVDEC's NV12 surfaces have no "yuvj": the range comes with the frame, as FFmpeg sets it for such streams.
        int range = format == AV_PIX_FMT_YUVJ420P ? AVCOL_RANGE_JPEG : frame.color_range();
        Resize.Window window = target.request().resize().sourceWindow(target.rotationDegrees(), w, h, target.framing(),
                target.outWidth(), target.outHeight(), 1, 1);
        try {
            Path yFile = Files.write(dir.resolve("y-" + System.nanoTime()), y);
            Path uvFile = Files.write(dir.resolve("uv-" + System.nanoTime()), uv);
            return new Planes(w, h, window, Nv12Kernel.colourFlags(frame.colorspace(), range), yFile, uvFile);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @SuppressWarnings("restricted")
    private static MemorySegment plane(AVFrame frame, int plane, int rows) {
        return MemorySegment.ofAddress(frame.data(plane).address()).reinterpret((long) frame.linesize(plane) * rows);
    }

    /**
     * nv12_to_rgb_clip (one launch, the grid's z the frame) draws the frame twice into a two-frame clip, slots 1 and 0:
     * each slot must hold exactly the one-frame kernel's bytes, in both layouts.
     */
    private static void theClipKernelDrawsEachSlotAsTheFrameKernel(Planes p, int size, MemorySegment packed,
                                                                   MemorySegment planar) throws Exception {
        long frameBytes = 3L * size * size;
        MemorySegment packedClip = draw(p, size, false, true, false);
        assertThat(packedClip.byteSize()).isEqualTo(2 * frameBytes);
        for (int slot = 0; slot < 2; slot++) {
            assertThat(packedClip.asSlice(slot * frameBytes, frameBytes).mismatch(packed)).as("NTHWC slot " + slot).isEqualTo(-1);
        }
        MemorySegment planarClip = draw(p, size, true, true, false);
        long plane = (long) size * size;
        for (int c = 0; c < 3; c++) {
            for (int slot = 0; slot < 2; slot++) {
                assertThat(planarClip.asSlice(c * 2 * plane + slot * plane, plane).mismatch(planar.asSlice(c * plane, plane)))
                        .as("NCTHW channel " + c + " slot " + slot).isEqualTo(-1);
            }
        }
    }

    /**
     * A mirrored clip ({@link Nv12Kernel.Destination#mirrored()}: the last column first, the pixel stride negated) is
     * drawn by both kernels as the unmirrored frame read right to left, byte for byte, in both layouts: what the CPU
     * path's {@link Resize#mirrorRows} makes of its frame.
     */
    private static void aMirroredDestinationDrawsTheFrameRightToLeft(Planes p, int size, MemorySegment packed,
                                                                      MemorySegment planar) throws Exception {
        MemorySegment expected = MemorySegment.ofArray(packed.toArray(ValueLayout.JAVA_BYTE));
        Resize.mirrorRows(expected, 0, 3L * size, expected, 0, size, size, new byte[3 * size + 1]);
        assertThat(draw(p, size, false, false, true).mismatch(expected)).as("NTHWC mirrored").isEqualTo(-1);
        long frameBytes = 3L * size * size;
        MemorySegment packedClip = draw(p, size, false, true, true);
        for (int slot = 0; slot < 2; slot++) {
            assertThat(packedClip.asSlice(slot * frameBytes, frameBytes).mismatch(expected)).as("NTHWC clip slot " + slot)
                    .isEqualTo(-1);
        }
        MemorySegment planarMirrored = draw(p, size, true, false, true);
        for (int c = 0; c < 3; c++) {
            for (int row = 0; row < size; row++) {
                for (int x = 0; x < size; x++) {
                    long plane = (long) c * size * size + (long) row * size;
                    assertThat(planarMirrored.get(ValueLayout.JAVA_BYTE, plane + x))
                            .as("NCTHW mirrored channel %d row %d x %d", c, row, x)
                            .isEqualTo(planar.get(ValueLayout.JAVA_BYTE, plane + size - 1 - x));
                }
            }
        }
    }

    private static MemorySegment draw(Planes p, int size, boolean planar, boolean clip, boolean mirror)
            throws IOException, InterruptedException {
        Path out = dir.resolve("out-" + System.nanoTime());
        Resize.Window w = p.window();
        List<String> command = new ArrayList<>(List.of(harness.toString(), p.y().toString(), p.uv().toString(),
                "" + p.width(), "" + p.height(), "" + w.x(), "" + w.y(), "" + w.width(), "" + w.height(), "" + size,
                "" + size, "" + p.colour(), planar ? "1" : "0", out.toString()));
        if (clip) {
            command.add("clip");
        }
        if (mirror) {
            command.add("mirror");
        }
        int exit = new ProcessBuilder(command).inheritIO().start().waitFor();
        assertThat(exit).as("harness exit status").isZero();
        return MemorySegment.ofArray(Files.readAllBytes(out));
    }
}
