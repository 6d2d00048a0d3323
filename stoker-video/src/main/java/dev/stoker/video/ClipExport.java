package dev.stoker.video;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.clip.VideoInfo;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Writes one clip of one video as images for a person to look at: {@code frame_0000.png}, ... and
 * {@code clip.json} (each frame's index and presentation time, the source's geometry and rotation,
 * frames decoded). The core of the {@code stoker clip} command.
 */
public final class ClipExport {
    private ClipExport() {
    }

    /**
     * Decodes {@code spec} from {@code video} at {@code resize} and writes it into
     * {@code outputDirectory} (created if needed).
     *
     * @return the decoded clip's description (also written to clip.json)
     * @throws VideoException when the video cannot be opened or the clip not decoded
     * @throws IOException    when the images or the JSON cannot be written
     */
    public static DecodedClip export(Path video, ClipSpec spec, Resize resize, Path outputDirectory) throws IOException {
        return export(video, spec, resize, outputDirectory, dev.stoker.video.internal.FrameFolder.DEFAULT_FPS);
    }

    /** {@link #export(Path, ClipSpec, Resize, Path)}, a video stored as a folder of frames playing at {@code frameFolderFps}. */
    public static DecodedClip export(Path video, ClipSpec spec, Resize resize, Path outputDirectory, double frameFolderFps)
            throws IOException {
        try (Video opened = Video.open(video, frameFolderFps); ClipDecoder decoder = new ClipDecoder(); Arena arena = Arena.ofConfined()) {
            Files.createDirectories(outputDirectory); // once the video opens: a missing one leaves no folder behind
            VideoInfo info = opened.info();
            MemorySegment pixels = arena.allocate(new ClipRequest(spec, resize, MemorySegment.NULL).requiredBytes(info));
            DecodedClip clip = decoder.decode(opened, new ClipRequest(spec, resize, pixels));
            for (int k = 0; k < clip.frameCount(); k++) {
                Path file = outputDirectory.resolve(String.format(Locale.ROOT, "frame_%04d.png", k));
                PngWriter.writeRgb(file, pixels, k * clip.frameBytes(), clip.width(), clip.height());
            }
            Files.writeString(outputDirectory.resolve("clip.json"), json(info, spec, clip), StandardCharsets.UTF_8);
            return clip;
        }
    }

    private static String json(VideoInfo info, ClipSpec spec, DecodedClip clip) {
        StringBuilder out = new StringBuilder(512);
        out.append("{\n");
        field(out, "path", quote(info.path())).append(",\n");
        field(out, "spec", quote(spec.toString())).append(",\n");
        field(out, "width", clip.width()).append(",\n");
        field(out, "height", clip.height()).append(",\n");
        out.append("  \"source\": {");
        out.append("\"codec\": ").append(quote(info.codec()));
        out.append(", \"pixelFormat\": ").append(quote(info.pixelFormat()));
        out.append(", \"codedWidth\": ").append(info.codedWidth());
        out.append(", \"codedHeight\": ").append(info.codedHeight());
        out.append(", \"rotationDegrees\": ").append(info.rotationDegrees());
        out.append(", \"displayWidth\": ").append(info.displayWidth());
        out.append(", \"displayHeight\": ").append(info.displayHeight());
        out.append(", \"framesPerSecond\": ").append(number(info.framesPerSecond()));
        out.append(", \"frameCount\": ").append(info.frameCount());
        out.append(", \"durationSeconds\": ").append(number(info.durationSeconds()));
        out.append("},\n");
        field(out, "frameIndices", list(clip.frameIndices())).append(",\n");
        field(out, "ptsSeconds", list(clip.ptsSeconds().stream().map(ClipExport::number).toList())).append(",\n");
        field(out, "framesDecoded", clip.decodedFrames()).append(",\n");
        field(out, "shifted", clip.shifted()).append(",\n");
        field(out, "repeatedFrames", clip.repeatedFrames()).append("\n");
        return out.append("}\n").toString();
    }

    private static StringBuilder field(StringBuilder out, String name, Object value) {
        return out.append("  \"").append(name).append("\": ").append(value);
    }

    private static String list(List<?> values) {
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < values.size(); i++) {
            out.append(i == 0 ? "" : ", ").append(values.get(i));
        }
        return out.append(']').toString();
    }

    private static String number(double value) {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%.6f", value) : "null";
    }

    private static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
