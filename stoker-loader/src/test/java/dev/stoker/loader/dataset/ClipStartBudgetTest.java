package dev.stoker.loader.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.clip.KeyframeIndex;
import dev.stoker.loader.dataset.internal.ClipStartDraw;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.OptionalDouble;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Clip starts under a decode budget come only from frames within the budget of their keyframe, are the frames'
 * own times (so the clip's first frame is the frame drawn), repeat for a seed and cover every eligible frame over
 * epochs; a video with none falls back to its cheapest start. Over a 100-frame, 30 fps index with a keyframe every
 * 10 frames; a clip of 8 frames at stride 2 spans 15 frames (0.5 s), so starts fit at frames 0 to 85.
 */
class ClipStartBudgetTest {
    private static final double CLIP_SECONDS = 15 / 30.0;
    private static final VideoEntry WHOLE = new VideoEntry(Path.of("v.mp4"), 0, "a");

    private static KeyframeIndex index(int frames, int gop) {
        double[] seconds = new double[frames];
        for (int i = 0; i < frames; i++) {
            seconds[i] = i / 30.0;
        }
        int[] keys = new int[(frames + gop - 1) / gop];
        for (int k = 0; k < keys.length; k++) {
            keys[k] = k * gop;
        }
        return KeyframeIndex.of(seconds, keys);
    }

    private static final KeyframeIndex VIDEO = index(100, 10);

    private static ClipStartDraw draw(ClipSampler sampler, VideoEntry entry, long epoch, int budget) {
        return ClipStartBudget.draw(sampler, entry, VIDEO, 100 / 30.0, CLIP_SECONDS, epoch, 5, budget);
    }

    private static int frameOf(double seconds) {
        return KeyframeIndex.firstAtOrAfter(VIDEO, seconds);
    }

    @Test
    void aBudgetOfZeroStartsEveryClipOnAKeyframeAtTheKeyframesOwnTime() {
        ClipStartDraw d = draw(ClipSampler.random(4, 42), WHOLE, 0, 0);
        assertThat(d.fittingStarts()).isEqualTo(86);
        assertThat(d.eligibleStarts()).isEqualTo(9);   // frames 0, 10, ..., 80
        assertThat(d.fallback()).isFalse();
        assertThat(d.startsSeconds()).hasSize(4).isSorted();
        for (double start : d.startsSeconds()) {
            assertThat(frameOf(start) % 10).isZero();
            assertThat(VIDEO.frameTimeSeconds(frameOf(start))).isEqualTo(start);
        }
        assertThat(d.leadFrames()).containsOnly(0);
    }

    @Test
    void everyStartIsWithinTheBudgetAndTheClipFits() {
        for (int epoch = 0; epoch < 50; epoch++) {
            ClipStartDraw d = draw(ClipSampler.random(3, 7), WHOLE, epoch, 3);
            assertThat(d.eligibleStarts()).isEqualTo(36);   // 0-3, 10-13, ..., 80-83
            for (int i = 0; i < 3; i++) {
                int frame = frameOf(d.startsSeconds()[i]);
                assertThat(frame % 10).isLessThanOrEqualTo(3);
                assertThat(frame).isLessThanOrEqualTo(85);
                assertThat(d.leadFrames()[i]).isEqualTo(frame % 10);
            }
        }
    }

    @Test
    void startsAreAFunctionOfSeedEpochAndVideoAndCoverEveryEligibleFrame() {
        ClipStartDraw first = draw(ClipSampler.random(2, 42), WHOLE, 3, 32);
        assertThat(draw(ClipSampler.random(2, 42), WHOLE, 3, 32).startsSeconds()).containsExactly(first.startsSeconds());
        Set<Integer> seen = new HashSet<>();
        for (int epoch = 0; epoch < 400; epoch++) {
            for (double start : draw(ClipSampler.random(1, 42), WHOLE, epoch, 0).startsSeconds()) {
                seen.add(frameOf(start));
            }
        }
        assertThat(seen).containsExactlyInAnyOrder(0, 10, 20, 30, 40, 50, 60, 70, 80);
    }

    @Test
    void uniformStartsAreTheEligibleFramesNearestToEvenlySpacedTimes() {
        // Evenly spaced: 0, 1.4167 s (frame 42.5) and 2.8333 s (frame 85); keyframes nearest: 0, 40, 80.
        ClipStartDraw d = draw(ClipSampler.uniform(3), WHOLE, 0, 0);
        assertThat(Arrays.stream(d.startsSeconds()).mapToInt(ClipStartBudgetTest::frameOf).toArray())
                .containsExactly(0, 40, 80);
    }

    @Test
    void aVideoWithNoEligibleStartFallsBackToItsCheapestForEveryClip() {
        // The entry's range, [2.1 s, 2.8 s], lets a clip start at frames 63 to 69: none of them a keyframe.
        VideoEntry range = new VideoEntry(Path.of("v.mp4"), 0, "a", OptionalDouble.of(2.1), OptionalDouble.of(2.3 + CLIP_SECONDS));
        ClipStartDraw d = draw(ClipSampler.random(3, 1), range, 0, 0);
        assertThat(d.fittingStarts()).isEqualTo(7);   // frames 63..69
        assertThat(d.eligibleStarts()).isZero();
        assertThat(d.fallback()).isTrue();
        assertThat(Arrays.stream(d.startsSeconds()).mapToInt(ClipStartBudgetTest::frameOf).toArray())
                .containsExactly(63, 63, 63);
        assertThat(d.leadFrames()).containsExactly(3, 3, 3);
    }

    @Test
    void aVideoShorterThanAClipStartsAtItsFirstFrame() {
        KeyframeIndex shortVideo = index(5, 10);
        ClipStartDraw d = ClipStartBudget.draw(ClipSampler.random(2, 1), WHOLE, shortVideo, 5 / 30.0, CLIP_SECONDS, 0, 0, 0);
        assertThat(d.startsSeconds()).containsExactly(0, 0);
        assertThat(d.fallback()).isFalse();
    }

    @Test
    void windowsAndFixedStartsTakeNoBudget() {
        assertThatThrownBy(() -> draw(ClipSampler.windows(0.5), WHOLE, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("maxLeadFrames: 0 with window starts");
        assertThatThrownBy(() -> draw(ClipSampler.fixed(0), WHOLE, 0, 4))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("maxLeadFrames: 4 with a clip window");
        assertThatThrownBy(() -> draw(ClipSampler.random(1, 1), WHOLE, 0, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxLeadFrames: -1 (expected: 0+ for a budget)");
    }

    @Test
    void aKeyframeIndexCountsTheLeadFromTheLastKeyframeAtOrBeforeAFrame() {
        KeyframeIndex index = KeyframeIndex.of(new double[] {0, 0.1, 0.2, 0.3, 0.4}, new int[] {1, 3});
        assertThat(new int[] {index.decodeLeadFrames(0), index.decodeLeadFrames(1), index.decodeLeadFrames(2),
                index.decodeLeadFrames(3), index.decodeLeadFrames(4)}).containsExactly(0, 0, 1, 0, 1);
        assertThatThrownBy(() -> KeyframeIndex.of(new double[] {0, 0.1}, new int[] {2}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyframes[0]: 2");
    }
}
