package dev.stoker.video.internal;

import dev.stoker.loader.dataset.Dataset;
import java.util.Locale;

/** The image kinds a frame of a folder of frames may be, the decoder of each, and the picture size their headers give. */
enum FrameImage {
    JPEG("mjpeg"), PNG("png");

    /** The FFmpeg decoder. */
    final String codec;

    FrameImage(String codec) {
        this.codec = codec;
    }

    /** The kind of a file of this name, or null when it is no frame ({@link Dataset#isFrameImage}). */
    static FrameImage of(String fileName) {
        if (!Dataset.isFrameImage(fileName)) {
            return null;
        }
        return fileName.toLowerCase(Locale.ROOT).endsWith(".png") ? PNG : JPEG;
    }

    /** Width and height in the image's header (JPEG: the start-of-frame segment; PNG: IHDR); null when not found. */
    int[] size(byte[] image) {
        return this == PNG ? pngSize(image) : jpegSize(image);
    }

    private static int[] pngSize(byte[] png) {
        if (png.length < 24 || (png[0] & 0xFF) != 0x89 || png[1] != 'P' || png[2] != 'N' || png[3] != 'G'
                || png[12] != 'I' || png[13] != 'H' || png[14] != 'D' || png[15] != 'R') {
            return null;
        }
        int width = u16(png, 16) << 16 | u16(png, 18);
        int height = u16(png, 20) << 16 | u16(png, 22);
        return width > 0 && height > 0 ? new int[] {width, height} : null;
    }

    private static int[] jpegSize(byte[] jpeg) {
        if (jpeg.length < 4 || (jpeg[0] & 0xFF) != 0xFF || (jpeg[1] & 0xFF) != 0xD8) {
            return null;
        }
        int at = 2;
        while (at + 4 <= jpeg.length) {
            if ((jpeg[at] & 0xFF) != 0xFF) {
                at++; // a stray byte between segments: libjpeg skips to the next marker, and so does this
                continue;
            }
            int marker = jpeg[at + 1] & 0xFF;
            if (marker == 0xFF) {
                at++; // fill byte
                continue;
            }
            if (marker == 0x01 || marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7)) {
                at += 2; // TEM, SOI, RSTn: markers without a length
                continue;
            }
            int length = u16(jpeg, at + 2);
            boolean startOfFrame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
            if (startOfFrame) {
                if (at + 9 > jpeg.length) {
                    return null;
                }
                int height = u16(jpeg, at + 5);
                int width = u16(jpeg, at + 7);
                // A height of 0 is given later (a DNL marker): rare enough to be refused rather than searched for.
                return width > 0 && height > 0 ? new int[] {width, height} : null;
            }
            if (marker == 0xDA || marker == 0xD9 || length < 2) {
                return null; // image data, or the end, before any frame header
            }
            at += 2 + length;
        }
        return null;
    }

    /**
     * Whether the image is whole. A JPEG cut short decodes without an error (FFmpeg conceals the missing rows with
     * the previous frame's, or green), so its end-of-image marker is looked for: walking the segments by their
     * lengths and each scan's entropy-coded data (where an 0xFF byte is followed by 0x00 or a restart marker) until
     * the EOI. A PNG cut short fails in the decoder.
     */
    boolean complete(byte[] image) {
        return this == PNG || jpegComplete(image);
    }

    private static boolean jpegComplete(byte[] jpeg) {
        int at = 2;
        while (at + 2 <= jpeg.length) {
            if ((jpeg[at] & 0xFF) != 0xFF) {
                at++;
                continue;
            }
            int marker = jpeg[at + 1] & 0xFF;
            if (marker == 0xD9) {
                return true;
            }
            if (marker == 0xFF || marker == 0x00 || marker == 0x01 || marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7)) {
                at += marker == 0xFF ? 1 : 2;
                continue;
            }
            if (at + 4 > jpeg.length) {
                return false;
            }
            at += 2 + u16(jpeg, at + 2);
            if (marker == 0xDA) {
                // Entropy-coded data up to the next marker: 0xFF is stuffed as FF 00, and RSTn markers sit inside.
                while (at + 1 < jpeg.length && !((jpeg[at] & 0xFF) == 0xFF && (jpeg[at + 1] & 0xFF) != 0x00
                        && ((jpeg[at + 1] & 0xFF) < 0xD0 || (jpeg[at + 1] & 0xFF) > 0xD7))) {
                    at++;
                }
            }
        }
        return false;
    }

    private static int u16(byte[] b, int at) {
        return (b[at] & 0xFF) << 8 | (b[at + 1] & 0xFF);
    }
}
