package dev.stoker.loader.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Strict UTF-8 read as a stream: characters cut by a chunk's end decode whole, and a bad byte far into a large text is
 * named by its line (counted as {@code String.lines()} counts) and offset, for bytes in memory and for a file alike.
 */
class Utf8Test {
    @TempDir
    Path dir;

    @Test
    void charactersAcrossChunksDecodeWholeAndABadByteFarInIsNamedByLineAndOffset() throws IOException {
        StringBuilder text = new StringBuilder();
        for (int i = 0; text.length() < 300_000; i++) {
            text.append("line ").append(i).append(": \u00e9t\u00e9 \u6f22\u5b57 \uD83C\uDFAC").append(i % 3 == 0 ? "\r\n" : "\n");
        }
        byte[] good = text.toString().getBytes(StandardCharsets.UTF_8);
        assertThat(Utf8.decode(good, "x", "a text")).isEqualTo(text.toString());
        assertThat(Utf8.firstError(Files.write(dir.resolve("good.csv"), good), "a manifest")).isNull();

        byte[] bad = good.clone();
        int at = good.length - 10;
        while ((bad[at] & 0xC0) == 0x80 || bad[at] < 0) {   // an ASCII byte, so that the bad one is a sequence's start
            at--;
        }
        bad[at] = (byte) 0xFF;
        long line = text.toString().substring(0, new String(good, 0, at, StandardCharsets.UTF_8).length()).lines().count();
        String expected = "(byte 0xFF at line " + line + ", offset " + at + ")";
        assertThatThrownBy(() -> Utf8.decode(bad, "x", "a text")).isInstanceOf(InvalidDatasetException.class)
                .hasMessage("x: a text that is not UTF-8 " + expected);
        Path file = Files.write(dir.resolve("bad.csv"), bad);
        assertThat(Utf8.firstError(file, "a manifest")).hasMessage(file + ": a manifest that is not UTF-8 " + expected);
    }

    @Test
    void aSequenceCutByTheEndIsRefusedAtItsFirstByte() {
        byte[] cut = {'a', '\n', (byte) 0xE6, (byte) 0xBC};
        assertThatThrownBy(() -> Utf8.decode(cut, "x", "a text"))
                .hasMessage("x: a text that is not UTF-8 (byte 0xE6 at line 2, offset 2)");
    }
}
