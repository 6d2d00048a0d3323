package dev.stoker.pipeline.subprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One sanity check over every built-in codec, and over resolving codecs by name as the child does. */
class ItemCodecsTest {

    private static <T> T roundTrip(ItemCodec<T> codec, T item) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(Math.max(1, codec.encodedBytes(item)));
            MemorySegment slice = buffer.asSlice(0, codec.encodedBytes(item));
            codec.encode(item, slice);
            ItemCodec<T> byName = ItemCodecs.named(codec.name());
            return byName.decode(slice);
        }
    }

    @Test
    void everyBuiltInCodecReturnsWhatItWasGiven() {
        assertThat(roundTrip(ItemCodecs.BYTES, new byte[] {1, 2, 3, -1})).containsExactly(1, 2, 3, -1);
        assertThat(roundTrip(ItemCodecs.BYTES, new byte[0])).isEmpty();
        assertThat(roundTrip(ItemCodecs.STRING, "grüße, 世界 😀")).isEqualTo("grüße, 世界 😀");
        assertThat(roundTrip(ItemCodecs.STRING, "")).isEmpty();
        assertThat(roundTrip(ItemCodecs.INTEGER, -42)).isEqualTo(-42);
        assertThat(roundTrip(ItemCodecs.LONG_CODEC, Long.MIN_VALUE)).isEqualTo(Long.MIN_VALUE);
        assertThat(roundTrip(ItemCodecs.PATH, Path.of("/data/k400/a b/ç.mp4"))).isEqualTo(Path.of("/data/k400/a b/ç.mp4"));
        assertThat(roundTrip(ItemCodecs.list(ItemCodecs.PATH), List.of(Path.of("a"), Path.of("b/c"))))
                .containsExactly(Path.of("a"), Path.of("b/c"));
        assertThat(roundTrip(ItemCodecs.list(ItemCodecs.list(ItemCodecs.INTEGER)), List.of(List.of(1, 2), List.of(), List.of(3))))
                .isEqualTo(List.of(List.of(1, 2), List.of(), List.of(3)));
    }

    @Test
    void unknownCodecNamesSayWhatWasExpected() {
        assertThatThrownBy(() -> ItemCodecs.named("no.such.Codec")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bytes, string, int, long, path, list:<codec>");
    }
}
