package dev.stoker.video;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;

/**
 * Writes 8-bit RGB images as PNG (RFC 2083: signature, IHDR, one zlib IDAT of filter-type-0 rows, IEND). Its own
 * few lines instead of {@code javax.imageio}, whose module ({@code java.desktop}, with AWT and its fonts) would be
 * the largest part of the bundle's runtime for this one use.
 */
final class PngWriter {
    private static final byte[] SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    private PngWriter() {
    }

    /** {@code width × height} RGB pixels, rows packed, starting at {@code offset} of {@code rgb}. */
    static void writeRgb(Path file, MemorySegment rgb, long offset, int width, int height) throws IOException {
        int rowBytes = width * 3;
        ByteArrayOutputStream pixels = new ByteArrayOutputStream(height * (rowBytes + 1) / 2);
        byte[] row = new byte[rowBytes + 1];   // row[0] = 0: filter type None
        try (DeflaterOutputStream zlib = new DeflaterOutputStream(pixels, new Deflater(6), 1 << 16)) {
            for (int y = 0; y < height; y++) {
                MemorySegment.copy(rgb, ValueLayout.JAVA_BYTE, offset + (long) y * rowBytes, row, 1, rowBytes);
                zlib.write(row);
            }
        }
        ByteArrayOutputStream header = new ByteArrayOutputStream(13);
        DataOutputStream h = new DataOutputStream(header);
        h.writeInt(width);
        h.writeInt(height);
        h.write(new byte[] {8, 2, 0, 0, 0});   // 8 bits, truecolour, deflate, adaptive filtering, no interlace
        try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(file))) {
            out.write(SIGNATURE);
            chunk(out, "IHDR", header.toByteArray());
            chunk(out, "IDAT", pixels.toByteArray());
            chunk(out, "IEND", new byte[0]);
        }
    }

    private static void chunk(OutputStream out, String type, byte[] data) throws IOException {
        byte[] name = type.getBytes(StandardCharsets.US_ASCII);
        CRC32 crc = new CRC32();
        crc.update(name);
        crc.update(data);
        DataOutputStream d = new DataOutputStream(out);
        d.writeInt(data.length);
        d.write(name);
        d.write(data);
        d.writeInt((int) crc.getValue());
        d.flush();
    }
}
