package dev.stoker.video.demo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * Broken copies of good videos, damaged the ways files break in the wild, for the tests of what a loader does with
 * them: made from the demo generator's files, so that these tests need no third-party samples (the damaged files of
 * {@code ../shared/videos} have tests of their own).
 */
public final class DamagedCopies {
    private DamagedCopies() {
    }

    /**
     * The first {@code fraction} of {@code video}'s bytes: an interrupted download or copy. An MP4 written by FFmpeg
     * keeps its index ({@code moov}) at the end, so a cut MP4 has none: reason {@code truncated}.
     */
    public static Path cut(Path video, double fraction, Path dest) throws IOException {
        byte[] bytes = Files.readAllBytes(video);
        byte[] kept = new byte[(int) (bytes.length * fraction)];
        System.arraycopy(bytes, 0, kept, 0, kept.length);
        return Files.write(dest, kept);
    }

    /**
     * {@code mp4} with every byte of its media data ({@code mdat}) replaced by noise and its index left intact: the
     * container opens and demuxes, and no packet decodes (reason {@code corrupt}).
     */
    public static Path garbled(Path mp4, Path dest) throws IOException {
        byte[] bytes = Files.readAllBytes(mp4);
        ByteBuffer boxes = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN);
        SplittableRandom noise = new SplittableRandom(42);
        boolean found = false;
        for (int at = 0; at + 8 <= bytes.length; ) {
            long size = Integer.toUnsignedLong(boxes.getInt(at));
            String type = new String(bytes, at + 4, 4, StandardCharsets.US_ASCII);
            int header = 8;
            if (size == 1) {   // a 64-bit size follows the type
                size = boxes.getLong(at + 8);
                header = 16;
            } else if (size == 0) {   // to the end of the file
                size = bytes.length - at;
            }
            if (size < header || at + size > bytes.length) {
                throw new IOException(mp4 + ": box '" + type + "' at " + at + " of " + size + " bytes (expected: an MP4)");
            }
            if (type.equals("mdat")) {
                for (int i = at + header; i < at + size; i++) {
                    bytes[i] = (byte) noise.nextInt(256);
                }
                found = true;
            }
            at += (int) size;
        }
        if (!found) {
            throw new IOException(mp4 + ": no mdat box (expected: an MP4)");
        }
        return Files.write(dest, bytes);
    }
}
