package dev.stoker.loader.dataset;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Strict UTF-8 for what a dataset holds as text (a manifest, a caption): a byte that is not UTF-8 is refused, naming
 * where it is, rather than read as a replacement character or reported as the JDK's bare "Input length = 1".
 */
final class Utf8 {

    private Utf8() {
    }

    /** {@code bytes} as text; else an error {@code "<where>: <what> that is not UTF-8 (byte 0xE9 at line 3, ...)"}. */
    static String decode(byte[] bytes, Object where, String what) throws InvalidDatasetException {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);   // UTF-8 never takes fewer bytes than UTF-16 units
        CoderResult result = decoder.decode(in, out, true);
        if (!result.isError()) {
            result = decoder.flush(out);
        }
        if (result.isError()) {
            int at = in.position();
            int line = 1;
            for (int i = 0; i < at; i++) {
                line += bytes[i] == '\n' ? 1 : 0;
            }
            throw new InvalidDatasetException(String.format(Locale.ROOT,
                    "%s: %s that is not UTF-8 (byte 0x%02X at line %d, byte %d of the file)", where, what,
                    bytes[at] & 0xFF, line, at));
        }
        return out.flip().toString();
    }
}
