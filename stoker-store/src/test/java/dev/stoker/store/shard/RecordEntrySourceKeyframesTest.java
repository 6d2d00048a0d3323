package dev.stoker.store.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.store.shard.internal.RecordEntry;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The source's keyframes ride at the end of a record's index entry: they survive the round trip, an entry without
 * them is byte for byte the entry of before (so shards written either way read with either reader), and a list
 * that cannot be the stored frames' is a damaged entry.
 */
class RecordEntrySourceKeyframesTest {

    private static RecordEntry entry(int[] sourceKeyframes) {
        RecordEntry.Packets packets = RecordEntry.Packets.blank(40);
        for (int i = 0; i < packets.count(); i++) {
            packets.pts()[i] = i;
            packets.durations()[i] = 1;
            packets.keyframes()[i] = i % 16 == 0;
            packets.offsets()[i] = 100L * i;
            packets.sizes()[i] = 90;
            packets.crc32c()[i] = i * 7;
        }
        return new RecordEntry(3, false, "/data/a.mp4", 1234, 99, 1, "archery", "", "", "h264", "yuv420p", 64, 48, 1, 30,
                30, 40 / 30.0, 4096, 4000, 77, new byte[] {1, 2, 3}, packets, sourceKeyframes);
    }

    @Test
    void theSourcesKeyframesSurviveTheRoundTrip() throws IOException {
        RecordEntry back = RecordEntry.decode(entry(new int[] {0, 25}).encode());
        assertThat(back.sourceKeyframes()).containsExactly(0, 25);
        assertThat(back.keyframes()[16]).isTrue();
        assertThat(RecordEntry.decode(entry(new int[0]).encode()).sourceKeyframes()).isEmpty();
    }

    @Test
    void anEntryWithoutThemIsTheEntryOfBeforeAndReadsAsNotKnown() throws IOException {
        byte[] without = entry(null).encode();
        byte[] with = entry(new int[] {0, 25}).encode();
        assertThat(Arrays.copyOf(with, without.length)).as("the old entry, then the list").isEqualTo(without);
        assertThat(with).hasSize(without.length + 4 + 2 * 4);
        assertThat(RecordEntry.decode(without).sourceKeyframes()).isNull();
    }

    @Test
    void aListThatCannotBeTheStoredFramesIsADamagedEntry() {
        for (int[] bad : new int[][] {{0, 40}, {5, 5}, {-1}, {10, 3}}) {
            assertThatThrownBy(() -> RecordEntry.decode(entry(bad).encode())).as(Arrays.toString(bad))
                    .isInstanceOf(IOException.class).hasMessageContaining("source keyframe");
        }
        byte[] count = entry(new int[] {0}).encode();
        count[count.length - 8] = 0x7F;   // the count's high byte: more keyframes than frames
        assertThatThrownBy(() -> RecordEntry.decode(count)).isInstanceOf(IOException.class)
                .hasMessageContaining("source keyframe count");
    }
}
