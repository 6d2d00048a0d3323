package dev.stoker.gpu;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.clip.Resize;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The argument of the {@code nv12_to_rgb_clip} kernel (struct {@code ClipJob} in {@code nv12_to_rgb.cu}): one clip's
 * frames, each an NV12 surface and the slot it is drawn into, with the crop window, colour and the clip's layout in
 * its device buffer. Passed by value in one launch, so nothing is copied to the device before it. Frames are added
 * as their surfaces are mapped; a job is reused clip after clip ({@link #reset}). Not thread-safe.
 */
final class ClipKernelJob {
    /** {@code CLIP_MAX_FRAMES}: frames one launch draws. */
    static final int MAX_FRAMES = 64;
    /** {@code sizeof(ClipJob)}: what the PTX declares for the kernel's one parameter. */
    static final int BYTES = 80 + MAX_FRAMES * 32;
    private static final long FRAMES_OFFSET = 80;

    private final MemorySegment job;
    private final long[] slotPointers = new long[MAX_FRAMES];
    private long clipPointer;
    private int frames;

    ClipKernelJob(Arena arena) {
        this.job = arena.allocate(BYTES, 8);
    }

    /**
     * Starts a job for one clip: frames of {@code srcWidth x srcHeight} cropped to {@code window}, drawn at
     * {@code outWidth x outHeight} into the clip at {@code clipPointer} of {@code clipFrames} frames in {@code layout},
     * mirrored left to right when {@code mirrored} ({@link Nv12Kernel.Destination#mirrored()}).
     */
    ClipKernelJob reset(long clipPointer, BatchLayout layout, int clipFrames, int outWidth, int outHeight, int srcWidth,
                        int srcHeight, Resize.Window window, int colour, boolean mirrored) {
        Nv12Kernel.Destination first = Nv12Kernel.Destination.of(clipPointer, layout, clipFrames, outHeight, outWidth, 0, 0);
        Nv12Kernel.Destination second = Nv12Kernel.Destination.of(clipPointer, layout, clipFrames, outHeight, outWidth, 0,
                Math.min(1, clipFrames - 1));
        long slotStride = second.pointer() - first.pointer();
        if (mirrored) {
            first = first.mirrored();
        }
        this.clipPointer = clipPointer;
        job.set(JAVA_LONG, 0, first.pointer());
        job.set(JAVA_LONG, 8, first.channelStride());
        job.set(JAVA_LONG, 16, first.rowStride());
        job.set(JAVA_LONG, 24, slotStride);
        job.set(JAVA_INT, 32, first.pixelStride());
        job.set(JAVA_INT, 36, outWidth);
        job.set(JAVA_INT, 40, outHeight);
        job.set(JAVA_INT, 44, srcWidth);
        job.set(JAVA_INT, 48, srcHeight);
        job.set(JAVA_FLOAT, 52, window.x());
        job.set(JAVA_FLOAT, 56, window.y());
        job.set(JAVA_FLOAT, 60, window.width());
        job.set(JAVA_FLOAT, 64, window.height());
        job.set(JAVA_INT, 68, colour);
        frames = 0;
        job.set(JAVA_INT, 72, 0);
        Arrays.fill(slotPointers, 0);
        return this;
    }

    /** Adds a frame: the surface at {@code y} (chroma at {@code uv}) drawn into slot {@code slot} of the clip. */
    void add(long y, int yPitch, long uv, int uvPitch, int slot) {
        if (frames == MAX_FRAMES) {
            throw new IllegalStateException("clip job: " + MAX_FRAMES + " frames already (expected: at most "
                    + MAX_FRAMES + " a launch)");
        }
        long at = FRAMES_OFFSET + 32L * frames;
        job.set(JAVA_LONG, at, y);
        job.set(JAVA_LONG, at + 8, uv);
        job.set(JAVA_INT, at + 16, yPitch);
        job.set(JAVA_INT, at + 20, uvPitch);
        job.set(JAVA_INT, at + 24, slot);
        job.set(JAVA_INT, at + 28, 0);
        slotPointers[frames] = y;
        frames++;
        job.set(JAVA_INT, 72, frames);
    }

    /** Drops the frames (after their launch), keeping the clip's geometry for the frames still to come. */
    void clearFrames() {
        frames = 0;
        job.set(JAVA_INT, 72, 0);
        Arrays.fill(slotPointers, 0);
    }

    int frames() { return frames; }

    boolean full() {
        return frames == MAX_FRAMES;
    }

    int outWidth() {
        return job.get(JAVA_INT, 36);
    }

    int outHeight() {
        return job.get(JAVA_INT, 40);
    }

    /** Frame {@code i}'s slot in the clip. */
    int slot(int i) {
        return job.get(JAVA_INT, FRAMES_OFFSET + 32L * i + 24);
    }

    /** Frame {@code i}'s luma surface. */
    long surface(int i) {
        return slotPointers[i];
    }

    /** The clip's first byte (slot 0's top left pixel; the kernel's {@code dst} is its top right one when mirrored). */
    long clipPointer() { return clipPointer; }

    /** The bytes passed as the kernel's argument. */
    MemorySegment segment() { return job; }
}
