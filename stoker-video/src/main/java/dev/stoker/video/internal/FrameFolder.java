package dev.stoker.video.internal;

import dev.stoker.loader.FetchHook;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.video.FailureReason;
import dev.stoker.video.Video;
import dev.stoker.video.VideoException;
import dev.stoker.video.VideoPackets;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.stream.LongStream;

/**
 * A video stored as a folder of images, one a frame: mmaction2's rawframes ({@code img_00001.jpg}), EPIC-KITCHENS'
 * {@code rgb_frames} ({@code frame_0000000001.jpg}), what {@code ffmpeg -i v.mp4 %06d.jpg} writes. The frames are the
 * folder's JPEG or PNG files in the order of the number in their names; every frame is a keyframe, so a clip costs
 * its own frames only, and only those are read: {@link #skeleton} selects a clip's frames without reading any,
 * {@link #read} reads the selected ones, {@link #video} decodes them as a {@link Video}. Images carry no time, so the
 * caller gives the rate they play at.
 *
 * <p>A folder holding frames of several names (mmaction2 writes {@code img_}, {@code flow_x_} and {@code flow_y_}
 * frames side by side) is read as its {@code img} frames; with no {@code img} among several names it is refused,
 * naming them. The frames read together must share one size: a frame of another size is an error naming it.
 */
public final class FrameFolder {
    /** The rate frames play at when nobody says: the usual extraction rate. */
    public static final double DEFAULT_FPS = 30;

    /** Ticks a frame lasts: the time base is 1/(fps × this), exact for rates given to a thousandth (29.97). */
    private static final int TICKS_PER_FRAME = 1000;

    private final Path folder;
    private final FrameListing frames;

    private FrameFolder(Path folder, FrameListing frames) {
        this.folder = folder;
        this.frames = frames;
    }

    /**
     * Lists the frames of {@code folder}: names only, no file opened; a listing is remembered while the folder's
     * modification time stands ({@link FrameListing}), since a folder is listed for every clip drawn from it.
     *
     * @throws VideoException when it is missing or unreadable, holds no JPEG or PNG frames, or mixes several names or
     *                        both kinds
     */
    public static FrameFolder list(Path folder) {
        return new FrameFolder(folder, FrameListing.of(folder));
    }

    private static byte[] readFrame(String path, Path frame) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(frame);
        } catch (NoSuchFileException e) {
            FrameListing.forget(frame.getParent()); // listed again at the next draw
            throw new VideoException(path, VideoException.Operation.INDEX, FailureReason.NOT_FOUND,
                    "frame " + frame.getFileName() + " is gone (the folder changed after it was listed)", e);
        } catch (IOException e) {
            throw new VideoException(path, VideoException.Operation.INDEX, FailureReason.IO_ERROR,
                    "cannot read frame " + frame.getFileName() + ": " + e, e);
        }
        if (bytes.length == 0) {
            throw new VideoException(path, VideoException.Operation.INDEX, FailureReason.EMPTY_FILE,
                    "frame " + frame.getFileName() + " has 0 bytes");
        }
        return bytes;
    }

    public Path folder() { return folder; }

    public int frameCount() { return frames.count(); }

    /** The file of frame {@code frame}, in play order. */
    public Path frame(int frame) {
        return folder.resolve(frames.name(frame));
    }

    /**
     * Frames read from a folder, all of {@code width × height}: {@code indices[i]}'s bytes at {@code offsets[i]} of
     * {@code bytes}, ascending. None read: a size of 1x1.
     */
    public record Frames(int[] indices, int[] offsets, byte[] bytes, int width, int height) {
        public Frames {
            if (indices.length != offsets.length) {
                throw new IllegalArgumentException("indices: " + indices.length + ", offsets: " + offsets.length
                        + " (expected: one offset a frame)");
            }
        }

        /** Bytes of the {@code i}th frame read. */
        int size(int i) {
            return (i + 1 < offsets.length ? offsets[i + 1] : bytes.length) - offsets[i];
        }
    }

    /**
     * The folder's frames at {@code fps} with no pixels read: for selecting clips ({@link Video#selectClip}) and
     * drawing starts, exactly as in {@link #video} of what {@link #read} reads. Its size is unknown (1x1); decoding it
     * fails.
     */
    public Video skeleton(double fps) {
        return video(new Frames(new int[0], new int[0], new byte[0], 1, 1), fps);
    }

    /**
     * Reads the frames {@code wanted} marks, checking each is an image of the first one's size.
     *
     * @throws VideoException when a frame is gone, unreadable, empty, not such an image, or of another size
     */
    public Frames read(BitSet wanted) {
        return read(wanted, null);
    }

    /**
     * {@link #read(BitSet)}, running {@code hook} (nullable) before each frame file is read, as the fetch stage runs it
     * before a video file is ({@code stoker bench --cold} evicts each from the page cache).
     *
     * @throws VideoException when a frame is gone, unreadable, empty, not such an image, or of another size, or the hook
     *                        fails
     */
    public Frames read(BitSet wanted, FetchHook hook) {
        if (wanted.length() > frames.count()) {
            throw new IllegalArgumentException("wanted: frame " + (wanted.length() - 1) + " (expected: under "
                    + frames.count() + ", the folder's frames)");
        }
        String path = folder.toString();
        int n = wanted.cardinality();
        int[] indices = new int[n];
        int[] offsets = new int[n];
        byte[][] read = new byte[n][];
        long total = 0;
        int width = 1;
        int height = 1;
        int i = 0;
        for (int f = wanted.nextSetBit(0); f >= 0; f = wanted.nextSetBit(f + 1)) {
            Path file = frame(f);
            if (hook != null) {
                try {
                    hook.beforeRead(file);
                } catch (IOException e) {
                    throw new VideoException(path, VideoException.Operation.INDEX, FailureReason.IO_ERROR, "before reading frame "
                            + file.getFileName() + ", " + hook.getClass().getSimpleName() + " failed: " + e.getMessage(), e);
                }
            }
            byte[] frame = readFrame(path, file);
            int[] size = frames.kind().size(frame);
            if (size == null) {
                throw new VideoException(path, VideoException.Operation.DECODE, FailureReason.CORRUPT,
                        "frame " + file.getFileName() + " is not a readable " + frames.kind() + " image");
            }
            if (!frames.kind().complete(frame)) {
                throw new VideoException(path, VideoException.Operation.DECODE, FailureReason.CORRUPT,
                        "frame " + file.getFileName() + " is cut short (" + frame.length + " bytes, no end-of-image"
                                + " marker)");
            }
            if (i == 0) {
                width = size[0];
                height = size[1];
            } else if (size[0] != width || size[1] != height) {
                throw new VideoException(path, VideoException.Operation.DECODE, FailureReason.UNSUPPORTED_CODEC,
                        "frame " + file.getFileName() + " is " + size[0] + "x" + size[1] + " (expected: " + width + "x"
                                + height + ", as frame " + frames.name(indices[0]) + ")");
            }
            indices[i] = f;
            offsets[i] = (int) total;
            read[i++] = frame;
            total += frame.length;
            if (total + (long) (i + 1) * VideoPackets.PADDING_BYTES > Integer.MAX_VALUE - 8) {
                // A limit of this reader, not the folder's fault: not a reason to quarantine it.
                throw new VideoException(path, VideoException.Operation.INDEX, FailureReason.INTERNAL, i + " frames of "
                        + total + " bytes read at once (expected: under 2 GiB; read fewer frames at a time)");
            }
        }
        byte[] bytes = new byte[(int) total];
        for (int k = 0; k < n; k++) {
            System.arraycopy(read[k], 0, bytes, offsets[k], read[k].length);
        }
        return new Frames(indices, offsets, bytes, width, height);
    }

    /** The folder's frames with the first one read: what a probe decodes (a video's first GOP). */
    public Video firstFrame(double fps) {
        BitSet first = new BitSet();
        first.set(0);
        return video(read(first), fps);
    }

    /**
     * The folder's frames at {@code fps} with those shown from {@code startSeconds} to {@code endSeconds} (infinite: the
     * last) read, and one more on either side, so that a selection by time finds every frame it looks at: what an
     * ingest of a manifest's range decodes, without reading the rest of a long folder.
     */
    public Video readSpan(double fps, double startSeconds, double endSeconds) {
        int last = frames.count() - 1;
        long from = Math.max(0, (long) Math.floor(startSeconds * fps) - 1);
        long to = Double.isInfinite(endSeconds) ? last : Math.min(last, (long) Math.ceil(endSeconds * fps) + 1);
        BitSet span = new BitSet();
        if (from <= to) {
            span.set((int) from, (int) to + 1);
        }
        return video(read(span), fps);
    }

    /** Every frame, read: for tools that take a whole video (an export). */
    public Video readAll(double fps) {
        return readSpan(fps, 0, Double.POSITIVE_INFINITY);
    }

    /**
     * The folder's frames at {@code fps} as a video holding the pixels of {@code read} (its own copy): decoding a
     * frame {@code read} does not hold fails, so decode only what the {@link #skeleton} selected for it.
     */
    public Video video(Frames read, double fps) {
        return video(folder.toString(), frames.kind().codec, frames.count(), read, fps);
    }

    /** {@link #video} from what a listing gave, for a side that holds no listing (the demux stage after fetch). */
    public static Video video(String path, String codec, int frameCount, Frames read, double fps) {
        if (!(fps >= LoaderOptions.Clip.MIN_FRAME_FOLDER_FPS && fps <= LoaderOptions.Clip.MAX_FRAME_FOLDER_FPS)) {
            throw new IllegalArgumentException("fps: " + fps + " (expected: " + LoaderOptions.Clip.MIN_FRAME_FOLDER_FPS
                    + " to " + LoaderOptions.Clip.MAX_FRAME_FOLDER_FPS + ", the options' range)");
        }
        int ticksPerSecond = (int) Math.round(fps * TICKS_PER_FRAME); // 1 to 10^6 within that range
        // Frame f shows at f frames' time, lasts one, and is a keyframe: an image decodes alone.
        long[] pts = LongStream.range(0, frameCount).map(f -> f * TICKS_PER_FRAME).toArray();
        long[] durations = LongStream.range(0, frameCount).map(f -> TICKS_PER_FRAME).toArray();
        boolean[] keyframes = new boolean[frameCount];
        Arrays.fill(keyframes, true);
        long[] offsets = new long[frameCount];
        int[] sizes = new int[frameCount];
        // Frames not read keep size 0 at offset 0: empty packets, which the decoder is never sent. Each frame read is
        // followed by the zero padding decoders may read into.
        long at = 0;
        for (int i = 0; i < read.indices().length; i++) {
            offsets[read.indices()[i]] = at;
            sizes[read.indices()[i]] = read.size(i);
            at += read.size(i) + VideoPackets.PADDING_BYTES;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(Math.max(at, VideoPackets.PADDING_BYTES)); // zeroed
            for (int i = 0; i < read.indices().length; i++) {
                MemorySegment.copy(read.bytes(), read.offsets()[i], data, ValueLayout.JAVA_BYTE,
                        offsets[read.indices()[i]], read.size(i));
            }
            return Video.copyFromPackets(path, new VideoPackets(codec, read.width(), read.height(), "unknown", 1,
                    ticksPerSecond, ticksPerSecond / (double) TICKS_PER_FRAME, new byte[0], data, pts, durations,
                    keyframes, offsets, sizes));
        }
    }

    /** The codec FFmpeg decodes the frames with ("mjpeg", "png"). */
    public String codec() {
        return frames.kind().codec;
    }

    @Override
    public String toString() {
        return "FrameFolder[" + folder + ", " + frames.count() + " " + frames.kind() + " frames]";
    }
}
