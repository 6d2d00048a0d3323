package dev.stoker.video.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Short videos with the variety of a crawled dataset, for tests that must hold over more than one codec and
 * container: made once a test JVM, with the ffmpeg command for what the bundled (LGPL) FFmpeg cannot encode (H.264
 * with B-frames, 10-bit H.264, HEVC, VP9, MPEG-4 Part 2 in AVI with MP3 audio, a rotated MOV) and the demo generator
 * for the rest (H.264 without B-frames, VP8). Without the ffmpeg command only the generator's; the third-party samples
 * of {@code ../shared/videos} have tests of their own.
 */
public final class MixedVideos {
    /** 2 s of test pattern each: file name, then the ffmpeg options that make it. */
    private static final List<List<String>> FFMPEG_MADE = List.of(
            List.of("h264_bframes.mp4", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-c:v", "libx264",
                    "-preset", "veryfast", "-bf", "3", "-g", "24", "-pix_fmt", "yuv420p"),
            List.of("mpeg4_mp3.avi", "-f", "lavfi", "-i", "testsrc=size=256x192:rate=24", "-f", "lavfi", "-i",
                    "sine=frequency=440:sample_rate=44100", "-c:v", "mpeg4", "-q:v", "5", "-c:a", "libmp3lame"),
            // Its display matrix is set by a remux after (an encode drops the rotate tag): see ROTATED.
            List.of("rotated_90.mov", "-f", "lavfi", "-i", "testsrc2=size=240x160:rate=30", "-c:v", "libx264",
                    "-preset", "veryfast", "-pix_fmt", "yuv420p"),
            List.of("h264_10bit.mp4", "-f", "lavfi", "-i", "testsrc2=size=200x200:rate=30", "-c:v", "libx264",
                    "-preset", "veryfast", "-pix_fmt", "yuv420p10le"),
            List.of("hevc.mp4", "-f", "lavfi", "-i", "testsrc2=size=192x128:rate=30", "-c:v", "libx265",
                    "-preset", "ultrafast", "-x265-params", "log-level=error", "-pix_fmt", "yuv420p", "-tag:v", "hvc1"),
            List.of("vp9.webm", "-f", "lavfi", "-i", "testsrc2=size=192x128:rate=30", "-c:v", "libvpx-vp9",
                    "-deadline", "realtime", "-cpu-used", "8", "-b:v", "200k"));

    private static final String ROTATED = "rotated_90.mov";

    private static List<Path> made;

    private MixedVideos() {
    }

    /** The videos, sorted by name: the ffmpeg command's (where it is installed), then two of the generator's. */
    public static synchronized List<Path> files() {
        if (made == null) {
            try {
                made = make();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot make the mixed test videos", e);
            }
        }
        return made;
    }

    /** Whether the ffmpeg command is there (the test videos it makes; the product never runs it). */
    public static boolean ffmpegAvailable() {
        try {
            Process process = new ProcessBuilder("ffmpeg", "-version").redirectErrorStream(true).start();
            process.getInputStream().readAllBytes();
            return process.waitFor(20, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static List<Path> make() throws IOException {
        List<Path> files = new ArrayList<>();
        if (ffmpegAvailable()) {
            Path dir = Files.createTempDirectory("stoker-mixed-");
            dir.toFile().deleteOnExit();
            for (List<String> spec : FFMPEG_MADE) {
                Path out = dir.resolve(spec.getFirst());
                List<String> command = new ArrayList<>(List.of("ffmpeg", "-nostdin", "-loglevel", "error", "-y"));
                command.addAll(spec.subList(1, spec.size()));
                // Softened like camera footage: a test pattern's one-pixel lines, scaled down, would measure the
                // scalers' filters against each other rather than the conversions' geometry and colour.
                command.addAll(List.of("-vf", "gblur=sigma=1.5", "-t", "2", out.toString()));
                run(command);
                if (out.getFileName().toString().equals(ROTATED)) {   // a display matrix of 90 degrees
                    Path encoded = Files.move(out, dir.resolve("unrotated_" + ROTATED));
                    run(List.of("ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", encoded.toString(), "-c", "copy",
                            "-metadata:s:v:0", "rotate=90", out.toString()));
                    Files.delete(encoded);
                }
                out.toFile().deleteOnExit();
                files.add(out);
            }
        }
        // Demo clip 3 is VP8 in WebM, the rest H.264 in MP4 (DemoCodec).
        try (Stream<Path> demo = Files.walk(DemoFolders.of(DemoSpec.small(1, 4, 2.0)))) {
            demo.filter(p -> p.getFileName().toString().matches(".*_\\d{3}\\.(mp4|webm)")).sorted(Comparator.reverseOrder())
                    .limit(2).forEach(files::add);
        }
        return List.copyOf(files);
    }

    private static void run(List<String> command) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        try {
            if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IOException(String.join(" ", command) + ": failed: " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", command), e);
        }
    }
}
