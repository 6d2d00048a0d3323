package dev.stoker.store;

import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.stoker.loader.LoaderOptions;
import java.util.Locale;
import java.util.Objects;

/**
 * What an ingest writes: the format and the stored geometry and timing. Recorded in every shard and in
 * the manifest; a rerun with other options does not reuse shards written with these.
 *
 * @param format          how frames are stored: H.264 packets, one JPEG a frame, or uint8 RGB frames
 * @param width           stored width; with {@code height}, frames are scaled to exactly width x height;
 *                        0 with {@code shortSide} or for the source size
 * @param height          stored height; see {@code width}
 * @param shortSide       when {@code > 0}, the short side is scaled to this, keeping the aspect ratio
 *                        (sizes rounded to even)
 * @param framesPerSecond when {@code > 0}, frames are resampled to this rate; 0 keeps the source's frames
 * @param gopFrames       keyframe interval of the video format, in frames
 * @param shardSizeBytes  a shard is closed once its payload reaches this many bytes
 * @param jpegQuality     JPEG quality, 2 (best) to 31 (FFmpeg's qscale)
 * @param frameFolderFps  frames a second of sources stored as folders of frames (which carry no time); 0 for the
 *                        loaders' default ({@link LoaderOptions.Clip#DEFAULT_FRAME_FOLDER_FPS}), and then not written,
 *                        so that shards ingested before it existed match
 */
public record IngestOptions(IngestOptions.Format format, int width, int height, int shortSide, double framesPerSecond,
                            int gopFrames, long shardSizeBytes, int jpegQuality,
                            @JsonInclude(JsonInclude.Include.NON_DEFAULT) double frameFolderFps) {

    /** How a shard stores a sample's frames; {@code --format} and the manifest name it in lower case. */
    public enum Format {
        /** H.264 packets at a fixed GOP: the smallest, decoded like the source. */
        VIDEO,
        /** One JPEG a frame: any frame decodes alone. */
        JPEG,
        /** Uint8 RGB frames: copied, not decoded; the largest. */
        RAW;

        /** The format named {@code name} ({@code video}, {@code jpeg} or {@code raw}). */
        public static Format of(String name) {
            for (Format f : values()) {
                if (f.toString().equals(name)) {
                    return f;
                }
            }
            throw new IllegalArgumentException("format: " + name + " (expected: video, jpeg or raw)");
        }

        /** {@code video}. */
        @JsonValue
        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public IngestOptions {
        Objects.requireNonNull(format, "format");
        if (width < 0 || height < 0 || (width == 0) != (height == 0)) {
            throw new IllegalArgumentException("size: " + width + "x" + height + " (expected: both 1+, or both 0)");
        }
        if (shortSide < 0 || (shortSide > 0 && width > 0)) {
            throw new IllegalArgumentException("shortSide: " + shortSide + " (expected: 0, or 1+ without width x height)");
        }
        if (framesPerSecond < 0 || !Double.isFinite(framesPerSecond)) {
            throw new IllegalArgumentException("framesPerSecond: " + framesPerSecond + " (expected: 0 for the source's, or > 0)");
        }
        if (gopFrames < 1) {
            throw new IllegalArgumentException("gopFrames: " + gopFrames + " (expected: 1+)");
        }
        if (shardSizeBytes < 1) {
            throw new IllegalArgumentException("shardSizeBytes: " + shardSizeBytes + " (expected: 1+)");
        }
        if (jpegQuality < 2 || jpegQuality > 31) {
            throw new IllegalArgumentException("jpegQuality: " + jpegQuality + " (expected: 2..31)");
        }
        if (frameFolderFps == LoaderOptions.Clip.DEFAULT_FRAME_FOLDER_FPS) {
            frameFolderFps = 0; // the default, as when not given: shards ingested either way match
        }
        if (frameFolderFps != 0 && !(frameFolderFps >= LoaderOptions.Clip.MIN_FRAME_FOLDER_FPS
                && frameFolderFps <= LoaderOptions.Clip.MAX_FRAME_FOLDER_FPS)) {
            throw new IllegalArgumentException("frameFolderFps: " + frameFolderFps + " (expected: 0 for the default, or "
                    + LoaderOptions.Clip.MIN_FRAME_FOLDER_FPS + " to " + LoaderOptions.Clip.MAX_FRAME_FOLDER_FPS + ")");
        }
    }

    /** Options for sources whose folders of frames play at the loaders' default rate. */
    public IngestOptions(Format format, int width, int height, int shortSide, double framesPerSecond, int gopFrames,
                         long shardSizeBytes, int jpegQuality) {
        this(format, width, height, shortSide, framesPerSecond, gopFrames, shardSizeBytes, jpegQuality, 0);
    }

    /** The rate a source stored as a folder of frames is read at. */
    public double folderFramesPerSecond() {
        return frameFolderFps > 0 ? frameFolderFps : LoaderOptions.Clip.DEFAULT_FRAME_FOLDER_FPS;
    }

    /** Sources stored as folders of frames read at {@code fps} frames a second. */
    public IngestOptions withFrameFolderFps(double fps) {
        return new IngestOptions(format, width, height, shortSide, framesPerSecond, gopFrames, shardSizeBytes, jpegQuality, fps);
    }

    /** Video format, source size and rate, GOP 16, 256 MiB shards, JPEG quality 3. */
    public static IngestOptions defaults() {
        return new IngestOptions(Format.VIDEO, 0, 0, 0, 0, 16, 256L << 20, 3);
    }

    public IngestOptions withFormat(Format format) {
        return new IngestOptions(format, width, height, shortSide, framesPerSecond, gopFrames, shardSizeBytes, jpegQuality,
                frameFolderFps);
    }

    /** Frames scaled to exactly {@code width x height}. */
    public IngestOptions withSize(int width, int height) {
        return new IngestOptions(format, width, height, 0, framesPerSecond, gopFrames, shardSizeBytes, jpegQuality,
                frameFolderFps);
    }

    /** The short side scaled to {@code shortSide}, aspect kept. */
    public IngestOptions withShortSide(int shortSide) {
        return new IngestOptions(format, 0, 0, shortSide, framesPerSecond, gopFrames, shardSizeBytes, jpegQuality,
                frameFolderFps);
    }

    public IngestOptions withFramesPerSecond(double framesPerSecond) {
        return new IngestOptions(format, width, height, shortSide, framesPerSecond, gopFrames, shardSizeBytes, jpegQuality,
                frameFolderFps);
    }

    public IngestOptions withGop(int gopFrames) {
        return new IngestOptions(format, width, height, shortSide, framesPerSecond, gopFrames, shardSizeBytes, jpegQuality,
                frameFolderFps);
    }

    public IngestOptions withShardSize(long shardSizeBytes) {
        return new IngestOptions(format, width, height, shortSide, framesPerSecond, gopFrames, shardSizeBytes, jpegQuality,
                frameFolderFps);
    }

    public IngestOptions withJpegQuality(int jpegQuality) {
        return new IngestOptions(format, width, height, shortSide, framesPerSecond, gopFrames, shardSizeBytes, jpegQuality,
                frameFolderFps);
    }

    /**
     * Parses a byte count with an optional binary suffix: {@code 1048576}, {@code 512k}, {@code 64M},
     * {@code 1G} (k = 1024).
     */
    public static long parseBytes(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.endsWith("b")) {
            t = t.substring(0, t.length() - 1);
        }
        long unit = 1;
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'k' -> unit = 1L << 10;
                case 'm' -> unit = 1L << 20;
                case 'g' -> unit = 1L << 30;
                case 't' -> unit = 1L << 40;
                default -> unit = 1;
            }
        }
        String digits = unit == 1 ? t : t.substring(0, t.length() - 1);
        try {
            long value = Long.parseLong(digits.strip());
            if (value < 1) {
                throw new NumberFormatException();
            }
            return Math.multiplyExact(value, unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("bytes: " + text + " (expected: a positive count with optional k, M or G, e.g. 256M)");
        }
    }
}
