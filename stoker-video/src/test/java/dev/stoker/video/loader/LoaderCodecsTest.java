package dev.stoker.video.loader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.pipeline.subprocess.ItemCodec;
import dev.stoker.pipeline.subprocess.ItemCodecs;
import dev.stoker.video.dataset.VideoEntry;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** The loader's items survive the trip to a child JVM and back: what --split-after fetch relies on. */
class LoaderCodecsTest {

    private static <T> T roundTrip(ItemCodec<T> codec, T item) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment slot = arena.allocate(codec.encodedBytes(item));
            codec.encode(item, slot);
            return ItemCodecs.<T>named(codec.name()).decode(slot);
        }
    }

    @Test
    void videoTasksAndFetchedVideosRoundTripWithEveryField() {
        VideoTask ranged = new VideoTask(new VideoEntry(Path.of("/data/k400/abseiling/ç 1.mp4"), 3, "abseiling",
                OptionalDouble.of(1.5), OptionalDouble.of(9.25)), 42, 2, 17, 1);
        VideoTask whole = new VideoTask(new VideoEntry(Path.of("a.webm"), 0, "x", OptionalDouble.empty(),
                OptionalDouble.empty()), 0, 0, 0, 0);
        assertThat(roundTrip(new LoaderCodecs.VideoTaskCodec(), ranged)).isEqualTo(ranged);
        assertThat(roundTrip(new LoaderCodecs.VideoTaskCodec(), whole)).isEqualTo(whole);
        FetchedVideo fetched = roundTrip(new LoaderCodecs.FetchedVideoCodec(), new FetchedVideo(ranged, new byte[] {9, 8, 7}));
        assertThat(fetched.task()).isEqualTo(ranged);
        assertThat(fetched.bytes()).containsExactly(9, 8, 7);
    }
}
