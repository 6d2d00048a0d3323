package dev.stoker.video.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.KeyframeIndex;
import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.video.VideoException;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link ClipSelection} of {@link ClipSpec.Segments}: TSN's sampling, a frame from each equal segment of a range. */
class ClipSelectionSegmentsTest {

    /** {@code n} frames at 30 fps, a keyframe every 250. */
    private static KeyframeIndex frames(int n) {
        return frames(n, 250);
    }

    /** {@code n} frames at 30 fps, a keyframe every {@code gop}. */
    private static KeyframeIndex frames(int n, int gop) {
        double[] times = new double[n];
        for (int i = 0; i < n; i++) {
            times[i] = i / 30.0;
        }
        return KeyframeIndex.of(times, java.util.stream.IntStream.iterate(0, k -> k < n, k -> k + gop).toArray());
    }

    private static int[] select(int n, ClipSpec spec) {
        return select(frames(n), spec);
    }

    private static int[] select(KeyframeIndex frames, ClipSpec spec) {
        return ClipSelection.of(frames, "v.mp4", frames.frameCount() / 30.0, spec).frames();
    }

    @Test
    void underADecodeBudgetASegmentGivesAFrameOfLeadWithinItOrItsCheapest() {
        // 160 frames, a keyframe every 16, 8 segments of 20: keyframes only (budget 0), the one nearest the middle for
        // testing (segment 0 holds 0 and 16, its middle 10: 16), any of them drawn for training.
        KeyframeIndex gop16 = frames(160, 16);
        assertThat(select(gop16, ClipSpec.segments(0, Double.POSITIVE_INFINITY, 8, false, 0, 0)))
                .containsExactly(16, 32, 48, 64, 96, 112, 128, 144);
        Set<Integer> firsts = new HashSet<>();
        for (long seed = 0; seed < 100; seed++) {
            int[] picked = select(gop16, ClipSpec.segments(0, Double.POSITIVE_INFINITY, 8, true, seed, 0));
            for (int k = 0; k < 8; k++) {
                assertThat(picked[k] % 16).as("seed %d segment %d: a keyframe", seed, k).isZero();
                assertThat(picked[k]).isBetween(20 * k, 20 * k + 19);
            }
            firsts.add(picked[0]);
            // A budget of 3: the keyframe or the 3 frames after it.
            for (int f : select(gop16, ClipSpec.segments(0, Double.POSITIVE_INFINITY, 8, true, seed, 3))) {
                assertThat(f % 16).isLessThanOrEqualTo(3);
            }
        }
        assertThat(firsts).as("segment 0's two keyframes both drawn").containsExactlyInAnyOrder(0, 16);
        // A keyframe every 50: segments 1, 3, 4 and 6 hold none and give their cheapest, their first frame.
        assertThat(select(frames(160, 50), ClipSpec.segments(0, Double.POSITIVE_INFINITY, 8, true, 7, 0)))
                .containsExactly(0, 20, 50, 60, 80, 100, 120, 150);
    }

    @Test
    void theTestSamplingTakesEachSegmentsMiddleFrameAsMmaction2sTestModeDoes() {
        // 300 frames, 8 segments of 37.5: mmaction2's int(37.5 * k + 18.75) = 18, 56, 93, 131, 168, 206, 243, 281.
        assertThat(select(300, ClipSpec.segments(0, Double.POSITIVE_INFINITY, 8, false, 0)))
                .containsExactly(18, 56, 93, 131, 168, 206, 243, 281);
        // A range: the frames shown in [2 s, 4 s), 60 of them from frame 60, 4 segments of 15: middles 7, 22, 37, 52.
        assertThat(select(300, ClipSpec.segments(2, 4, 4, false, 0))).containsExactly(67, 82, 97, 112);
    }

    @Test
    void theTrainingSamplingDrawsAFrameOfEachSegmentFromItsSeed() {
        Set<String> draws = new HashSet<>();
        for (int n : new int[] {8, 9, 17, 300, 301, 1000}) {
            for (long seed = 0; seed < 200; seed++) {
                int[] picked = select(n, ClipSpec.segments(0, Double.POSITIVE_INFINITY, 8, true, seed));
                for (int k = 0; k < 8; k++) {
                    assertThat(picked[k]).as("n %d seed %d segment %d", n, seed, k).isBetween(k * n / 8, (k + 1) * n / 8 - 1);
                }
                assertThat(select(n, ClipSpec.segments(0, Double.POSITIVE_INFINITY, 8, true, seed)))
                        .as("the same seed, the same frames").isEqualTo(picked);
                if (n == 300) {
                    draws.add(java.util.Arrays.toString(picked));
                }
            }
        }
        assertThat(draws).as("200 seeds draw 200 different clips of 300 frames").hasSize(200);
        // Each frame of a segment is drawn: segment 0 of 300 frames holds 0..36, and 2000 seeds reach all 37.
        Set<Integer> firsts = new HashSet<>();
        for (long seed = 0; seed < 2000; seed++) {
            firsts.add(select(300, ClipSpec.segments(0, Double.POSITIVE_INFINITY, 8, true, seed))[0]);
        }
        assertThat(firsts).hasSize(37);
    }

    @Test
    void fewerFramesThanSegmentsRepeatFramesInOrderAndAnEmptyRangeTakesTheLastOrFails() {
        int[] picked = select(5, ClipSpec.segments(0, Double.POSITIVE_INFINITY, 8, true, 3));
        assertThat(picked).isSorted().containsOnly(0, 1, 2, 3, 4).contains(0, 1, 2, 3, 4);
        assertThat(ClipSelection.of(frames(5), "v.mp4", 5 / 30.0, ClipSpec.segments(0, Double.POSITIVE_INFINITY, 8, false, 0))
                .repeatedFrames()).isEqualTo(3);
        assertThat(select(30, ClipSpec.segments(5, 6, 4, false, 0))).containsExactly(29, 29, 29, 29);
        assertThatThrownBy(() -> select(30, ClipSpec.segments(5, 6, 4, false, 0).withPastEnd(PastEndPolicy.SKIP)))
                .isInstanceOf(VideoException.class).hasMessageContaining("has no frame in [5.0, 6.0) s");
        assertThatThrownBy(() -> ClipSpec.segments(2, 2, 4, false, 0))
                .hasMessage("endSeconds: 2.0 (expected: above startSeconds, 2.0; infinite for the video's end)");
    }
}
