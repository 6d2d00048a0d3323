package dev.stoker.video;

import static org.bytedeco.ffmpeg.global.avutil.AVCOL_RANGE_JPEG;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_SPC_BT2020_CL;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_SPC_BT2020_NCL;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_SPC_BT470BG;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_SPC_BT709;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_SPC_FCC;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_SPC_SMPTE170M;
import static org.bytedeco.ffmpeg.global.avutil.AVCOL_SPC_SMPTE240M;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_FLAG_BITSTREAM;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_FLAG_HWACCEL;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_FLAG_PAL;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_FLAG_RGB;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_RGB24;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_YUV411P;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_YUV420P;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_YUV422P;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_YUV440P;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_YUV444P;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_YUVJ411P;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_YUVJ420P;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_YUVJ422P;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_YUVJ440P;
import static org.bytedeco.ffmpeg.global.avutil.AV_PIX_FMT_YUVJ444P;
import static org.bytedeco.ffmpeg.global.avutil.av_pix_fmt_desc_get;
import static org.bytedeco.ffmpeg.global.swscale.SWS_BILINEAR;
import static org.bytedeco.ffmpeg.global.swscale.SWS_CS_DEFAULT;
import static org.bytedeco.ffmpeg.global.swscale.sws_freeContext;
import static org.bytedeco.ffmpeg.global.swscale.sws_getCachedContext;
import static org.bytedeco.ffmpeg.global.swscale.sws_getCoefficients;
import static org.bytedeco.ffmpeg.global.swscale.sws_scale;
import static org.bytedeco.ffmpeg.global.swscale.sws_setColorspaceDetails;

import dev.stoker.loader.clip.Resize;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.bytedeco.ffmpeg.avutil.AVFrame;
import org.bytedeco.ffmpeg.avutil.AVPixFmtDescriptor;
import org.bytedeco.ffmpeg.swscale.SwsContext;
import org.bytedeco.javacpp.DoublePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.PointerPointer;


/**
 * Turns a decoded frame into upright RGB24 at the output size, written into a caller's segment.
 * The crop is taken from the source picture (only the cropped region is scaled), swscale writes
 * straight into the destination when no rotation is needed, and rotated videos go through a small
 * scratch image that is turned while copied. Single owner of its SwsContexts; not thread-safe.
 */
final class FrameConverter implements AutoCloseable {
    // AVFrame starts with uint8_t *data[8] then int linesize[8]; stable since FFmpeg 1.0.
    private static final long FRAME_DATA_OFFSET = 0;
    private static final long FRAME_LINESIZE_OFFSET = 64;

    /**
     * SwsContexts kept by geometry: clips of one video that scale differently (scale jitter) are converted a shared
     * frame at a time, clip after clip, and one context would be rebuilt at every switch.
     */
    private static final int CONTEXTS = 8;
    /**
     * Bytes swscale may write past a frame's last pixel: its unscaled YUV-to-RGB24 converters write whole blocks, and
     * a 56x40 cut of a 192x128 4:2:0 frame came out 24 bytes long (AugmentedClipTest's canary). A frame is drawn
     * straight into the destination only when this much of the destination follows it (a later slot of the clip,
     * drawn after it); else into the scratch, which has this much to spare.
     */
    static final int OVERRUN_BYTES = 64;

    private final PointerPointer<?> sourcePlanes = new PointerPointer<>(4);
    private final IntPointer sourceStrides = new IntPointer(4);
    private final PointerPointer<?> targetPlanes = new PointerPointer<>(4);
    private final IntPointer targetStrides = new IntPointer(4);
    private final MemorySegment sourcePlanesView = view(sourcePlanes.address(), 32);
    private final MemorySegment sourceStridesView = view(sourceStrides.address(), 16);
    private final MemorySegment targetPlanesView = view(targetPlanes.address(), 32);
    private final MemorySegment targetStridesView = view(targetStrides.address(), 16);

    private int cachedFormat = -1;
    private PixelLayout layout;

    /** What a context converts: its source region's size and format, the target size, the colour matrix and range. */
    private record Geometry(int sourceWidth, int sourceHeight, int sourceFormat, int targetWidth, int targetHeight,
                            int colorspace, int fullRange) {
    }

    private final Geometry[] geometries = new Geometry[CONTEXTS];
    private final SwsContext[] contexts = new SwsContext[CONTEXTS];
    private final long[] lastUsed = new long[CONTEXTS];
    private long configured;

    private Arena scratchArena;
    private MemorySegment scratch;
    /** One output row, for mirroring a frame in place. */
    private byte[] mirrorRow;

    /** Chroma subsampling and bytes per pixel of each plane, to offset plane pointers for a crop. */
    private record PixelLayout(int chromaShiftX, int chromaShiftY, int[] planeStepBytes, boolean rgb, boolean cropable) {
        static PixelLayout of(int format) {
            AVPixFmtDescriptor descriptor = av_pix_fmt_desc_get(format);
            if (descriptor == null || descriptor.isNull()) {
                return new PixelLayout(0, 0, new int[4], false, false);
            }
            long flags = descriptor.flags();
            int[] steps = new int[4];
            for (int c = 0; c < descriptor.nb_components(); c++) {
                int plane = descriptor.comp(c).plane();
                steps[plane] = Math.max(steps[plane], descriptor.comp(c).step());
            }
            boolean cropable = (flags & (AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM | AV_PIX_FMT_FLAG_HWACCEL)) == 0;
            return new PixelLayout(descriptor.log2_chroma_w(), descriptor.log2_chroma_h(), steps,
                    (flags & AV_PIX_FMT_FLAG_RGB) != 0, cropable);
        }
    }

    /** A crop rectangle in decoded (coded-orientation) pixels. */
    private record Rect(int x, int y, int width, int height) {
    }

    /**
     * Converts {@code frame} into {@code destination} at {@code offset}: {@code outWidth x outHeight}
     * RGB24 in displayed orientation, framed as {@code framing} says (crop position and short side; mirrored last,
     * in the output, so that rotation and mirror compose as they are displayed).
     */
    void convert(AVFrame frame, int rotation, Resize resize, Resize.Framing framing, int outWidth, int outHeight,
                 MemorySegment destination, long offset, String path) {
        int format = frame.format();
        if (format != cachedFormat) {
            layout = PixelLayout.of(format);
            cachedFormat = format;
        }
        boolean quarterTurn = rotation == 90 || rotation == 270;
        int codedWidth = frame.width();
        int codedHeight = frame.height();
        Rect source = sourceRect(resize, rotation, codedWidth, codedHeight, framing, outWidth, outHeight);
        int scaledWidth = quarterTurn ? outHeight : outWidth;
        int scaledHeight = quarterTurn ? outWidth : outHeight;
        SwsContext sws = configure(frame, format, source, scaledWidth, scaledHeight, path);

        MemorySegment frameView = view(frame.address(), 128);
        for (int plane = 0; plane < 4; plane++) {
            long address = frameView.get(ValueLayout.JAVA_LONG, FRAME_DATA_OFFSET + plane * 8L);
            int stride = frameView.get(ValueLayout.JAVA_INT, FRAME_LINESIZE_OFFSET + plane * 4L);
            if (address != 0 && layout.cropable) {
                boolean chroma = !layout.rgb && (plane == 1 || plane == 2);
                int x = chroma ? source.x >> layout.chromaShiftX : source.x;
                int y = chroma ? source.y >> layout.chromaShiftY : source.y;
                address += (long) y * stride + (long) x * layout.planeStepBytes[plane];
            }
            sourcePlanesView.set(ValueLayout.JAVA_LONG, plane * 8L, address);
            sourceStridesView.set(ValueLayout.JAVA_INT, plane * 4L, stride);
        }

        long frameBytes = (long) outWidth * outHeight * 3;
        boolean direct = rotation == 0 && destination.isNative()
                && offset + frameBytes + OVERRUN_BYTES <= destination.byteSize();
        MemorySegment target = direct ? destination.asSlice(offset, frameBytes) : scratch(frameBytes);
        targetPlanesView.set(ValueLayout.JAVA_LONG, 0, target.address());
        targetStridesView.set(ValueLayout.JAVA_INT, 0, scaledWidth * 3);
        int rows = sws_scale(sws, sourcePlanes, sourceStrides, 0, source.height, targetPlanes, targetStrides);
        if (rows <= 0) {
            throw new VideoException(path, VideoException.Operation.CONVERT, FailureReason.INTERNAL,
                    "sws_scale produced no rows: " + Ffmpeg.describe(rows));
        }
        if (!direct) {
            turnInto(target, scaledWidth, scaledHeight, rotation, destination, offset, outWidth, outHeight);
        }
        if (framing.mirrored()) {
            if (mirrorRow == null || mirrorRow.length < outWidth * 3 + 1) {
                mirrorRow = new byte[outWidth * 3 + 1];
            }
            Resize.mirrorRows(destination, offset, outWidth * 3L, destination, offset, outWidth, outHeight, mirrorRow);
        }
    }

    /** The region of the decoded picture that ends up in the output, per resize mode and rotation. */
    private Rect sourceRect(Resize resize, int rotation, int codedWidth, int codedHeight, Resize.Framing framing,
                            int outWidth, int outHeight) {
        if (!layout.cropable) {
            return new Rect(0, 0, codedWidth, codedHeight);
        }
        Resize.Window w = resize.sourceWindow(rotation, codedWidth, codedHeight, framing, outWidth, outHeight,
                layout.chromaShiftX, layout.chromaShiftY);
        return new Rect(w.x(), w.y(), w.width(), w.height());
    }

    /** The context converting {@code source} of {@code frame} to the target size: a kept one, else one made. */
    private SwsContext configure(AVFrame frame, int format, Rect source, int targetWidth, int targetHeight, String path) {
        int sourceFormat = withoutJpegRange(format);
        int fullRange = frame.color_range() == AVCOL_RANGE_JPEG || sourceFormat != format ? 1 : 0;
        int colorspace = swsColorspace(frame.colorspace());
        Geometry wanted = new Geometry(source.width, source.height, sourceFormat, targetWidth, targetHeight, colorspace,
                fullRange);
        int slot = 0;
        for (int i = 0; i < CONTEXTS; i++) {
            if (wanted.equals(geometries[i])) {
                lastUsed[i] = ++configured;
                return contexts[i];
            }
            if (lastUsed[i] < lastUsed[slot]) {
                slot = i;   // empty slots (0) first, else the least recently used
            }
        }
        geometries[slot] = null;
        contexts[slot] = sws_getCachedContext(contexts[slot], source.width, source.height, sourceFormat, targetWidth,
                targetHeight, AV_PIX_FMT_RGB24, SWS_BILINEAR, null, null, (DoublePointer) null);
        SwsContext sws = contexts[slot];
        if (sws == null || sws.isNull()) {
            contexts[slot] = null;
            lastUsed[slot] = 0;
            throw new VideoException(path, VideoException.Operation.CONVERT, FailureReason.UNSUPPORTED_CODEC,
                    "swscale cannot convert pixel format " + format + " at " + source.width + "x" + source.height);
        }
        if (!layout.rgb) {
            // RGB output is always full range; the source's matrix and range come from the frame.
            sws_setColorspaceDetails(sws, sws_getCoefficients(colorspace), fullRange,
                    sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16);
        }
        geometries[slot] = wanted;
        lastUsed[slot] = ++configured;
        return sws;
    }

    /** yuvj formats are yuv plus "full range"; swscale wants the range said separately. */
    private static int withoutJpegRange(int format) {
        if (format == AV_PIX_FMT_YUVJ420P) {
            return AV_PIX_FMT_YUV420P;
        } else if (format == AV_PIX_FMT_YUVJ422P) {
            return AV_PIX_FMT_YUV422P;
        } else if (format == AV_PIX_FMT_YUVJ444P) {
            return AV_PIX_FMT_YUV444P;
        } else if (format == AV_PIX_FMT_YUVJ440P) {
            return AV_PIX_FMT_YUV440P;
        } else if (format == AV_PIX_FMT_YUVJ411P) {
            return AV_PIX_FMT_YUV411P;
        }
        return format;
    }

    /** AVColorSpace to swscale's SWS_CS_*; unspecified falls back to BT.601 as FFmpeg does. */
    private static int swsColorspace(int colorspace) {
        if (colorspace == AVCOL_SPC_BT709 || colorspace == AVCOL_SPC_FCC || colorspace == AVCOL_SPC_BT470BG
                || colorspace == AVCOL_SPC_SMPTE170M || colorspace == AVCOL_SPC_SMPTE240M) {
            return colorspace; // SWS_CS_* share these values
        }
        if (colorspace == AVCOL_SPC_BT2020_NCL || colorspace == AVCOL_SPC_BT2020_CL) {
            return AVCOL_SPC_BT2020_NCL;
        }
        return SWS_CS_DEFAULT;
    }

    /** Copies the scaled image into the destination, turning it clockwise by {@code rotation}. */
    private static void turnInto(MemorySegment scaled, int scaledWidth, int scaledHeight, int rotation,
                                 MemorySegment destination, long offset, int outWidth, int outHeight) {
        if (rotation == 0) {
            MemorySegment.copy(scaled, 0, destination, offset, (long) outWidth * outHeight * 3);
            return;
        }
        for (int y = 0; y < outHeight; y++) {
            long row = offset + (long) y * outWidth * 3;
            for (int x = 0; x < outWidth; x++) {
                int sx;
                int sy;
                switch (rotation) {
                    case 90 -> {
                        sx = y;
                        sy = scaledHeight - 1 - x;
                    }
                    case 180 -> {
                        sx = scaledWidth - 1 - x;
                        sy = scaledHeight - 1 - y;
                    }
                    default -> { // 270
                        sx = scaledWidth - 1 - y;
                        sy = x;
                    }
                }
                MemorySegment.copy(scaled, ((long) sy * scaledWidth + sx) * 3, destination, row + x * 3L, 3);
            }
        }
    }

    private MemorySegment scratch(long bytes) {
        if (scratch == null || scratch.byteSize() < bytes + OVERRUN_BYTES) {
            if (scratchArena != null) {
                scratchArena.close();
            }
            scratchArena = Arena.ofShared();
            scratch = scratchArena.allocate(Math.max(bytes + OVERRUN_BYTES, 64 * 1024), 64);
        }
        return scratch.asSlice(0, bytes);
    }

    private static MemorySegment view(long address, long bytes) {
        return MemorySegment.ofAddress(address).reinterpret(bytes);
    }

    @Override
    public void close() {
        for (int i = 0; i < CONTEXTS; i++) {
            if (contexts[i] != null) {
                sws_freeContext(contexts[i]);
                contexts[i] = null;
                geometries[i] = null;
            }
        }
        if (scratchArena != null) {
            scratchArena.close();
            scratchArena = null;
            scratch = null;
        }
        sourcePlanes.close();
        sourceStrides.close();
        targetPlanes.close();
        targetStrides.close();
    }
}
