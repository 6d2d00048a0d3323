package dev.stoker.loader.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class ClipSamplerTest {

    @Test
    void randomIsAFunctionOfSeedEpochAndVideo() {
        ClipSampler sampler = ClipSampler.random(5, 42);
        double[] first = sampler.clipStarts(10, 2, 3, 7);
        // Another instance, other calls in between: still the same starts.
        ClipSampler.random(5, 42).clipStarts(10, 2, 0, 0);
        assertThat(ClipSampler.random(5, 42).clipStarts(10, 2, 3, 7)).containsExactly(first);
        assertThat(sampler.clipStarts(10, 2, 4, 7)).isNotEqualTo(first);
        assertThat(sampler.clipStarts(10, 2, 3, 8)).isNotEqualTo(first);
        assertThat(ClipSampler.random(5, 43).clipStarts(10, 2, 3, 7)).isNotEqualTo(first);
    }

    @Test
    void randomStartsAreSortedAndLetTheClipFit() {
        ClipSampler sampler = ClipSampler.random(8, 1);
        for (int video = 0; video < 200; video++) {
            double[] starts = sampler.clipStarts(10, 2.5, 0, video);
            assertThat(starts).hasSize(8).isSorted();
            for (double start : starts) {
                assertThat(start).isBetween(0.0, 7.5);
            }
        }
    }

    @Test
    void shortVideosStartAtZero() {
        assertThat(ClipSampler.random(3, 1).clipStarts(1, 2, 0, 0)).containsExactly(0, 0, 0);
        assertThat(ClipSampler.uniform(2).clipStarts(1, 2, 0, 0)).containsExactly(0, 0);
        assertThat(ClipSampler.windows(0.5).clipStarts(1, 2, 0, 0)).containsExactly(0);
        assertThat(ClipSampler.windows(0.5).clipStarts(0, 2, 0, 0)).containsExactly(0);
    }

    @Test
    void uniformSpansFirstToLastStart() {
        assertThat(ClipSampler.uniform(3).clipStarts(10, 2, 0, 0)).containsExactly(0, 4, 8);
        assertThat(ClipSampler.uniform(1).clipStarts(10, 2, 0, 0)).containsExactly(4);
        assertThat(ClipSampler.uniform(3).clipStarts(10, 2, 5, 9)).containsExactly(0, 4, 8);
    }

    @Test
    void windowsCoverEveryStepThatFits() {
        assertThat(ClipSampler.windows(1).clipStarts(5, 2, 0, 0)).containsExactly(0, 1, 2, 3);
        // 299 frames at 30 fps is 9.9666.. s: rounding must not lose or add a window.
        double[] starts = ClipSampler.windows(0.1).clipStarts(3.0, 2.0, 0, 0);
        assertThat(starts).hasSize(11);
        assertThat(starts[10]).isCloseTo(1.0, within(1e-9));
    }

    @Test
    void entryRangeRestrictsAndOffsetsStarts() {
        VideoEntry entry = new VideoEntry(Path.of("v.mp4"), 0, "c", OptionalDouble.of(4), OptionalDouble.of(8));
        assertThat(ClipSampler.uniform(3).clipStarts(entry, 20, 2, 0, 0)).containsExactly(4, 5, 6);
        // The range is clamped to the real duration.
        assertThat(ClipSampler.uniform(2).clipStarts(entry, 6, 1, 0, 0)).containsExactly(4, 5);
        double[] random = ClipSampler.random(16, 9).clipStarts(entry, 20, 2, 1, 1);
        for (double start : random) {
            assertThat(start).isBetween(4.0, 6.0);
        }
    }

    @Test
    void argumentsAreChecked() {
        assertThatThrownBy(() -> ClipSampler.random(0, 1)).hasMessage("clipsPerVideo: 0 (expected: 1+)");
        assertThatThrownBy(() -> ClipSampler.uniform(-1)).hasMessage("clipsPerVideo: -1 (expected: 1+)");
        assertThatThrownBy(() -> ClipSampler.windows(0)).hasMessage("stepSeconds: 0.0 (expected: > 0)");
        assertThatThrownBy(() -> ClipSampler.uniform(1).clipStarts(Double.NaN, 1, 0, 0))
                .hasMessage("videoSeconds: NaN (expected: finite, 0+)");
        assertThatThrownBy(() -> ClipSampler.uniform(1).clipStarts(1, -1, 0, 0))
                .hasMessage("clipSeconds: -1.0 (expected: finite, 0+)");
    }
}
