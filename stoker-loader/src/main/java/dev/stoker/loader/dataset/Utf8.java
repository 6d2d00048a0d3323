package dev.stoker.loader.dataset;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Strict UTF-8 for what a dataset holds as text (a manifest, a caption): a byte that is not UTF-8 is refused, naming
 * the line and offset it is at, rather than read as a replacement character or reported as the JDK's bare
 * "Input length = 1". Reads as a stream, so that finding the byte in a manifest of gigabytes holds none of it.
 */
final class Utf8 {
    private static final int CHUNK = 1 << 16;

    private Utf8() {
    }

    /** {@code bytes} as text; else an error {@code "<where>: <what> that is not UTF-8 (byte 0xE9 at line 3, ...)"}. */
    static String decode(byte[] bytes, Object where, String what) throws InvalidDatasetException {
        StringBuilder text = new StringBuilder(bytes.length);
        try {
            scan(new ByteArrayInputStream(bytes), where, what, text);
        } catch (InvalidDatasetException e) {
            throw e;
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail to read
        }
        return text.toString();
    }

    /**
     * The error naming the first byte of {@code file} that is not UTF-8, for a reader that was refused one (such as
     * {@code Files.readAllLines}, whose own exception names neither the file nor the place); null if there is none.
     */
    static InvalidDatasetException firstError(Path file, String what) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            scan(in, file, what, null);
            return null;
        } catch (InvalidDatasetException e) {
            return e;
        }
    }

    /** Decodes {@code in} into {@code text} (null: only checks), counting lines as {@code String.lines()} does. */
    private static void scan(InputStream in, Object where, String what, StringBuilder text) throws IOException {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        CharBuffer chars = CharBuffer.allocate(CHUNK);
        byte[] chunk = new byte[CHUNK];
        ByteBuffer pending = ByteBuffer.allocate(0);   // the start of a sequence the last chunk cut
        long offset = 0;                               // of pending's first byte in the stream
        long line = 1;
        boolean afterCarriageReturn = false;
        while (true) {
            int read = in.read(chunk);
            boolean end = read < 0;
            ByteBuffer input = ByteBuffer.allocate(pending.remaining() + Math.max(read, 0));
            input.put(pending).put(chunk, 0, Math.max(read, 0)).flip();
            CoderResult result;
            do {
                result = decoder.decode(input, chars, end);
                if (end && !result.isError() && !result.isOverflow()) {
                    result = decoder.flush(chars);
                }
                if (text != null) {
                    text.append(chars.flip());
                }
                chars.clear();
            } while (result.isOverflow());
            for (int i = 0; i < input.position(); i++) {
                byte b = input.get(i);
                if (b == '\r' || (b == '\n' && !afterCarriageReturn)) {
                    line++;
                }
                afterCarriageReturn = b == '\r';
            }
            if (result.isError()) {
                throw new InvalidDatasetException(String.format(Locale.ROOT,
                        "%s: %s that is not UTF-8 (byte 0x%02X at line %d, offset %d)", where, what,
                        input.get(input.position()) & 0xFF, line, offset + input.position()));
            }
            offset += input.position();
            pending = input.slice();
            if (end) {
                return;
            }
        }
    }
}
