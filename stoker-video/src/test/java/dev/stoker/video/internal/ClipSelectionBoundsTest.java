package dev.stoker.video.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.KeyframeIndex;
import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.video.FailureReason;
import dev.stoker.video.VideoException;
import org.junit.jupiter.api.Test;

/**
 * {@link ClipSelection} of a spec {@link ClipSpec#within bounds} (a manifest entry's range): every kind of clip selects
 * as if the bounds' frames were the whole video, as a shard that stores the range alone selects, and never a frame
 * outside them. 93 frames at 30 fps (3.1 s), a keyframe every 16.
 */
class ClipSelectionBoundsTest {
    private static final KeyframeIndex VIDEO = frames(93);

    private static KeyframeIndex frames(int n) {
        double[] times = new double[n];
        for (int i = 0; i < n; i++) {
            times[i] = i / 30.0;
        }
        return KeyframeIndex.of(times, java.util.stream.IntStream.iterate(0, k -> k < n, k -> k + 16).toArray());
    }

    private static ClipSelection select(KeyframeIndex frames, ClipSpec spec) {
        return ClipSelection.of(frames, "v.mp4", frames.frameCount() / 30.0, spec);
    }

    /** What the same spec selects in a shard of the range's {@code count} frames from {@code first}, renumbered. */
    private static int[] inShard(int first, int count, ClipSpec spec, double startInRange) {
        int[] frames = select(frames(count), withStart(spec, startInRange)).frames();
        for (int k = 0; k < frames.length; k++) {
            frames[k] += first;
        }
        return frames;
    }

    private static ClipSpec withStart(ClipSpec spec, double start) {
        return switch (spec) {
            case ClipSpec.Strided s -> ClipSpec.frames(start, s.frames(), s.strideFrames()).withPastEnd(s.pastEnd());
            case ClipSpec.Resampled r -> ClipSpec.resampled(start, r.durationSeconds(), r.framesPerSecond())
                    .withPastEnd(r.pastEnd());
            case ClipSpec.Linspace l -> ClipSpec.linspace(start, l.durationSeconds(), l.frames()).withPastEnd(l.pastEnd());
            case ClipSpec.Segments g -> ClipSpec.segments(start, Double.POSITIVE_INFINITY, g.frames(), g.random(),
                    g.seed()).withPastEnd(g.pastEnd());
        };
    }

    @Test
    void aClipPastItsRangesEndIsPlacedAgainstTheRangeNotTheVideo() {
        ClipSpec.Bounds range = new ClipSpec.Bounds(0.9, 1.1);   // frames 27..32
        // A strided clip of 8 frames 2 apart (15 frames) in a range of 6: SHIFT cannot move before the range's
        // first frame (it moved to frame 78 of the video before), so it starts there and repeats the range's last.
        ClipSelection shifted = select(VIDEO, ClipSpec.frames(0.9, 8, 2).within(range));
        assertThat(shifted.frames()).containsExactly(27, 29, 31, 32, 32, 32, 32, 32);
        assertThat(shifted.repeatedFrames()).isEqualTo(5);
        assertThat(select(VIDEO, ClipSpec.frames(1.0, 8, 2).withPastEnd(PastEndPolicy.REPEAT_LAST).within(range))
                .frames()).containsExactly(30, 32, 32, 32, 32, 32, 32, 32);
        // A range long enough: SHIFT moves the clip to end on the range's last frame, not the video's.
        ClipSpec.Bounds longer = new ClipSpec.Bounds(1.0, 2.0);   // frames 30..59
        assertThat(select(VIDEO, ClipSpec.frames(1.6, 8, 2).within(longer)).frames())
                .containsExactly(45, 47, 49, 51, 53, 55, 57, 59);
        // Resampled, linspace windows and segments alike.
        assertThat(select(VIDEO, ClipSpec.resampled(1.5, 8 / 15.0, 15).within(longer)).frames())
                .containsExactly(45, 47, 49, 51, 53, 55, 57, 59);
        assertThat(select(VIDEO, ClipSpec.linspace(1.8, 0.5, 4).within(longer)).frames())
                .containsExactly(54, 55, 57, 59);
        assertThat(select(VIDEO, ClipSpec.segments(1.0, 2.0, 3, false, 0).within(longer)).frames())
                .containsExactly(35, 45, 55);
    }

    @Test
    void everySpecSelectsInItsRangeWhatAShardOfThatRangeSelects() {
        ClipSpec[] specs = {
                ClipSpec.frames(0, 8, 2), ClipSpec.frames(0, 8, 2).withPastEnd(PastEndPolicy.REPEAT_LAST),
                ClipSpec.resampled(0, 0.5, 15), ClipSpec.resampled(0, 0.5, 15).withPastEnd(PastEndPolicy.REPEAT_LAST),
                ClipSpec.linspace(0, 0.5, 6), ClipSpec.segments(0, Double.POSITIVE_INFINITY, 5, true, 7)};
        double[][] ranges = {{1.0, 2.0}, {2.5, 5.0}, {0.9, 1.1}, {0, 0.05}, {3.0, 4.0}};
        for (double[] r : ranges) {
            ClipSpec.Bounds range = new ClipSpec.Bounds(r[0], r[1]);
            int first = (int) Math.round(r[0] * 30);
            int count = Math.min(93, (int) Math.round(r[1] * 30)) - first;
            for (ClipSpec spec : specs) {
                for (double into = 0; into < count / 30.0; into += 0.1) {
                    int[] selected = select(VIDEO, withStart(spec, r[0] + into).within(range)).frames();
                    assertThat(selected).as("%s in %s from %.1f s", spec, range, into)
                            .containsExactly(inShard(first, count, spec, into));
                    for (int f : selected) {
                        assertThat(f).as("%s in %s", spec, range).isBetween(first, first + count - 1);
                    }
                }
            }
        }
    }

    @Test
    void aRangeWithNoFrameFailsOutOfRangeWhateverThePolicy() {
        for (PastEndPolicy policy : PastEndPolicy.values()) {
            assertThatThrownBy(() -> select(VIDEO, ClipSpec.frames(3.1, 8, 2).withPastEnd(policy)
                    .within(new ClipSpec.Bounds(50, 60))))
                    .isInstanceOfSatisfying(VideoException.class, e -> {
                        assertThat(e.reason()).isEqualTo(FailureReason.OUT_OF_RANGE);
                        assertThat(e.getMessage()).contains("v.mp4").contains("[50.0, 60.0) s")
                                .contains("0 of the video's 93 frames");
                    });
        }
    }

    @Test
    void aSpecWithoutBoundsSelectsAsBefore() {
        assertThat(ClipSpec.frames(0, 8, 2).bounds()).isEqualTo(ClipSpec.Bounds.WHOLE);
        assertThat(select(VIDEO, ClipSpec.frames(3.0, 8, 2)).frames()).containsExactly(78, 80, 82, 84, 86, 88, 90, 92);
        assertThat(ClipSpec.frames(1, 8, 2).within(ClipSpec.Bounds.WHOLE)).isEqualTo(ClipSpec.frames(1, 8, 2));
    }
}
