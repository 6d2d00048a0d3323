package dev.stoker.gpu;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.stoker.loader.batch.BatchLayout;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The {@code nv12_to_rgb} kernel ({@code nv12_to_rgb.ptx}, source in {@code src/main/cuda}): one NV12
 * frame in device memory to uint8 RGB, cropped and resized bilinearly, written into one frame of a
 * device batch in its layout; and {@code nv12_to_rgb_clip}, every frame of a clip in one launch. Loaded once per
 * device from PTX; the driver JIT-compiles it for the GPU.
 */
final class Nv12Kernel implements AutoCloseable {
    static final String RESOURCE = "nv12_to_rgb.ptx";
    static final String ENTRY = "nv12_to_rgb";
    /** The entry that draws a whole clip in one launch ({@link ClipKernelJob}). */
    static final String CLIP_ENTRY = "nv12_to_rgb_clip";
    private static final int BLOCK = 16;

    private final CudaDevice device;
    private final long module;
    private final long function;
    private final long clipFunction;

    /** Loads the PTX on {@code device} (the driver JIT-compiles it) and finds the kernel's entry. */
    private Nv12Kernel(CudaDevice device) {
        this.device = device;
        device.bind();
        CudaDriver d = device.driver();
        try (Arena arena = Arena.ofConfined()) {
            this.module = d.moduleLoadData(arena.allocateFrom(ptx()));
        }
        try {
            this.function = d.moduleGetFunction(module, ENTRY);
            this.clipFunction = d.moduleGetFunction(module, CLIP_ENTRY);
        } catch (RuntimeException e) {
            d.call(CudaDriver.HandleCall.MODULE_UNLOAD, module);
            throw e;
        }
    }

    static Nv12Kernel load(CudaDevice device) {
        return new Nv12Kernel(device);
    }

    /** The PTX text of the kernel. */
    static String ptx() {
        try (InputStream in = Nv12Kernel.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + RESOURCE + " is missing from stoker-gpu");
            }
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where a frame of a batch goes: its first byte and the strides of its layout. */
    record Destination(long pointer, int width, int height, long channelStride, long rowStride, int pixelStride) {

        /** Frame {@code frame} of clip {@code clip} of a batch at {@code batchPointer}. */
        static Destination of(long batchPointer, BatchLayout layout, int frames, int height, int width, int clip, int frame) {
            long clipBytes = 3L * frames * height * width;
            long planeBytes = (long) frames * height * width;
            return switch (layout) {
                case NTHWC -> new Destination(batchPointer + clip * clipBytes + 3L * frame * height * width, width, height,
                        1, 3L * width, 3);
                case NCTHW -> new Destination(batchPointer + clip * clipBytes + (long) frame * height * width, width, height,
                        planeBytes, width, 1);
            };
        }

        /**
         * The same frame drawn mirrored left to right: the kernel writes output pixel x at {@code pointer + x *
         * pixelStride}, so starting at the last column with the stride negated lays each row out reversed.
         */
        Destination mirrored() {
            return new Destination(pointer + (long) (width - 1) * pixelStride, width, height, channelStride, rowStride,
                    -pixelStride);
        }
    }

    /** The kernel's {@code colour} bit for BT.709 (else BT.601). */
    static final int COLOUR_BT709 = 1;
    /** The kernel's {@code colour} bit for full (JPEG) range (else limited). */
    static final int COLOUR_FULL_RANGE = 2;

    /**
     * The {@code colour} argument for a frame's {@code AVColorSpace} and {@code AVColorRange}, read as the
     * CPU path's swscale set-up reads them: BT.709 as BT.709, anything else (unspecified included) as BT.601;
     * JPEG range as full range.
     */
    static int colourFlags(int colorspace, int colorRange) {
        return (colorspace == org.bytedeco.ffmpeg.global.avutil.AVCOL_SPC_BT709 ? COLOUR_BT709 : 0)
                | (colorRange == org.bytedeco.ffmpeg.global.avutil.AVCOL_RANGE_JPEG ? COLOUR_FULL_RANGE : 0);
    }

    /**
     * Queues the conversion of one NV12 frame ({@code y} / {@code uv} planes with their pitches) cropped
     * to {@code cropX, cropY, cropWidth, cropHeight} on {@code stream}, with {@code colour} from
     * {@link #colourFlags}.
     */
    void launch(long y, int yPitch, long uv, int uvPitch, int srcWidth, int srcHeight, float cropX, float cropY,
                float cropWidth, float cropHeight, Destination dst, int colour, long stream) {
        device.bind();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment[] values = {
                    arena.allocateFrom(JAVA_LONG, y), arena.allocateFrom(JAVA_INT, yPitch),
                    arena.allocateFrom(JAVA_LONG, uv), arena.allocateFrom(JAVA_INT, uvPitch),
                    arena.allocateFrom(JAVA_INT, srcWidth), arena.allocateFrom(JAVA_INT, srcHeight),
                    arena.allocateFrom(JAVA_FLOAT, cropX), arena.allocateFrom(JAVA_FLOAT, cropY),
                    arena.allocateFrom(JAVA_FLOAT, cropWidth), arena.allocateFrom(JAVA_FLOAT, cropHeight),
                    arena.allocateFrom(JAVA_LONG, dst.pointer()), arena.allocateFrom(JAVA_INT, dst.width()),
                    arena.allocateFrom(JAVA_INT, dst.height()), arena.allocateFrom(JAVA_LONG, dst.channelStride()),
                    arena.allocateFrom(JAVA_LONG, dst.rowStride()), arena.allocateFrom(JAVA_INT, dst.pixelStride()),
                    arena.allocateFrom(JAVA_INT, colour)};
            MemorySegment params = arena.allocate(ADDRESS, values.length);
            for (int i = 0; i < values.length; i++) {
                params.setAtIndex(ADDRESS, i, values[i]);
            }
            device.driver().launchKernel(function, (dst.width() + BLOCK - 1) / BLOCK, (dst.height() + BLOCK - 1) / BLOCK, 1,
                    BLOCK, BLOCK, 1, 0, stream, params);
        }
    }

    /**
     * Queues {@code job}'s frames on {@code stream} in one launch (the grid's z is the frame). The job's bytes are the
     * kernel's argument: the driver copies them at the launch, so the job may be reset as soon as this returns.
     */
    void launchClip(ClipKernelJob job, long stream) {
        if (job.frames() == 0) {
            return;
        }
        device.bind();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment params = arena.allocate(ADDRESS, 1);
            params.setAtIndex(ADDRESS, 0, job.segment());
            device.driver().launchKernel(clipFunction, (job.outWidth() + BLOCK - 1) / BLOCK,
                    (job.outHeight() + BLOCK - 1) / BLOCK, job.frames(), BLOCK, BLOCK, 1, 0, stream, params);
        }
    }

    @Override
    public void close() {
        device.bind();
        device.driver().call(CudaDriver.HandleCall.MODULE_UNLOAD, module);
    }
}
