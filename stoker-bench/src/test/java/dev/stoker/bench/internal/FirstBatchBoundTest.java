package dev.stoker.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.stoker.loader.batch.ClipInfo;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The first batch's bound: its slowest clip, or its work spread over the cores, whichever is longer. */
class FirstBatchBoundTest {
    private static ClipInfo clip(String name, int framesDecoded) {
        return new ClipInfo(Path.of("/data", name), 0, new double[] {0.0}, framesDecoded);
    }

    @Test
    void oneSlowClipBoundsTheBatchWhenTheRestFitsBesideIt() {
        List<ClipInfo> clips = List.of(clip("a.mp4", 40), clip("b.mp4", 50), clip("slow.mkv", 241), clip("c.mp4", 30));
        FirstBatchBound b = FirstBatchBound.of(1.3, clips, new double[] {0.06, 0.07, 0.92, 0.05}, 2);
        assertThat(b.slowestClip()).isEqualTo("/data/slow.mkv");
        assertThat(b.slowestClipFrames()).isEqualTo(241);
        assertThat(b.workSeconds()).isCloseTo(1.10, within(1e-9));
        assertThat(b.boundSeconds()).isEqualTo(0.92);
        assertThat(b.explanation()).isEqualTo("no schedule beats 0.92 s here: its slowest clip takes 0.92 s alone (slow.mkv,"
                + " 241 frames decoded), its 4 clips 1.10 s of work for 2 cores");
    }

    @Test
    void evenClipsAreBoundByTheirWorkOverTheCores() {
        List<ClipInfo> clips = List.of(clip("a.mp4", 40), clip("b.mp4", 40), clip("c.mp4", 40));
        FirstBatchBound b = FirstBatchBound.of(0.5, clips, new double[] {0.2, 0.2, 0.3}, 2);
        assertThat(b.boundSeconds()).isCloseTo(0.35, within(1e-9));
        assertThat(b.slowestClip()).isEqualTo("/data/c.mp4");
    }

    @Test
    void timingsMustMatchTheClips() {
        assertThatThrownBy(() -> FirstBatchBound.of(1, List.of(clip("a.mp4", 1)), new double[0], 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("clips: 1, timings: 0 (expected: as many, 1+)");
    }
}
