package dev.stoker.video;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;

/**
 * Writes RGB24 pixels as an 8-bit truecolour PNG with {@code java.base} alone. ImageIO would pull in
 * {@code java.desktop}, 11 MB of the self-contained bundle's runtime, for this one file format.
 */
final class PngFile {
    private static final byte[] SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    private static final int COLOUR_RGB = 2;
    // The "Sub" filter (each byte minus the one a pixel to its left) makes natural images deflate far better
    // than raw rows, at one subtraction a byte.
    private static final int FILTER_SUB = 1;

    private PngFile() {
    }

    /** Writes the {@code width}×{@code height} RGB24 image at {@code offset} of {@code pixels} to {@code file}. */
    static void writeRgb(Path file, MemorySegment pixels, long offset, int width, int height) throws IOException {
        int stride = width * 3;
        ByteArrayOutputStream compressed = new ByteArrayOutputStream(stride * height / 2 + 64);
        Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION);
        try (DeflaterOutputStream zlib = new DeflaterOutputStream(compressed, deflater)) {
            byte[] row = new byte[stride];
            byte[] filtered = new byte[stride + 1];
            filtered[0] = FILTER_SUB;
            for (int y = 0; y < height; y++) {
                MemorySegment.copy(pixels, ValueLayout.JAVA_BYTE, offset + (long) y * stride, row, 0, stride);
                for (int i = 0; i < stride; i++) {
                    filtered[i + 1] = (byte) (row[i] - (i >= 3 ? row[i - 3] : 0));
                }
                zlib.write(filtered);
            }
        } finally {
            deflater.end();
        }
        try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(file))) {
            out.write(SIGNATURE);
            ByteArrayOutputStream header = new ByteArrayOutputStream(13);
            DataOutputStream h = new DataOutputStream(header);
            h.writeInt(width);
            h.writeInt(height);
            h.writeByte(8); // bits per channel
            h.writeByte(COLOUR_RGB);
            h.writeByte(0); // deflate
            h.writeByte(0); // adaptive filtering, one filter byte a row
            h.writeByte(0); // no interlace
            chunk(out, "IHDR", header.toByteArray());
            chunk(out, "IDAT", compressed.toByteArray());
            chunk(out, "IEND", new byte[0]);
        }
    }

    private static void chunk(DataOutputStream out, String type, byte[] data) throws IOException {
        byte[] name = type.getBytes(StandardCharsets.US_ASCII);
        CRC32 crc = new CRC32();
        crc.update(name);
        crc.update(data);
        out.writeInt(data.length);
        out.write(name);
        out.write(data);
        out.writeInt((int) crc.getValue());
    }
}
