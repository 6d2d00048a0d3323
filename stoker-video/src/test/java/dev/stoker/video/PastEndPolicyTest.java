package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.loader.clip.Resize;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


/** Clips that reach past the last frame shift, repeat the last frame, or fail, as their policy says. */
class PastEndPolicyTest {
    @TempDir
    static Path directory;
    private static Video video; // 30 frames at 30 fps
    private static ClipDecoder decoder;
    private static Arena arena;

    @BeforeAll
    static void open() {
        IndexedVideos.requireFfmpeg();
        video = Video.open(IndexedVideos.encode(directory, "thirty.mp4", 30,
                List.of("-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-g", "10")));
        decoder = new ClipDecoder();
        arena = Arena.ofShared();
    }

    @AfterAll
    static void close() {
        if (video != null) {
            video.close();
            decoder.close();
            arena.close();
        }
    }

    @Test
    void shiftMovesTheStartSoTheClipEndsOnTheLastFrame() {
        DecodedClip clip = decode(ClipSpec.frames(0.8, 4, 3));
        assertThat(clip.frameIndices()).containsExactly(20, 23, 26, 29);
        assertThat(clip.shifted()).isTrue();
        assertThat(clip.repeatedFrames()).isZero();
    }

    @Test
    void shiftRepeatsTheLastFrameWhenTheVideoIsTooShortEvenFromTheStart() {
        DecodedClip clip = decode(ClipSpec.frames(0.5, 8, 5));
        assertThat(clip.frameIndices()).containsExactly(0, 5, 10, 15, 20, 25, 29, 29);
        assertThat(clip.repeatedFrames()).isEqualTo(2);
    }

    @Test
    void repeatLastKeepsTheStart() {
        DecodedClip clip = decode(ClipSpec.frames(0.8, 4, 3).withPastEnd(PastEndPolicy.REPEAT_LAST));
        assertThat(clip.frameIndices()).containsExactly(24, 27, 29, 29);
        assertThat(clip.shifted()).isFalse();
        assertThat(clip.repeatedFrames()).isEqualTo(2);
    }

    @Test
    void startBeyondTheEndIsShiftedOrRepeated() {
        assertThat(decode(ClipSpec.frames(5, 3, 1)).frameIndices()).containsExactly(27, 28, 29);
        assertThat(decode(ClipSpec.frames(5, 3, 1).withPastEnd(PastEndPolicy.REPEAT_LAST)).frameIndices())
                .containsExactly(29, 29, 29);
    }

    @Test
    void skipFailsWithOutOfRange() {
        assertThatThrownBy(() -> decode(ClipSpec.frames(0.8, 4, 3).withPastEnd(PastEndPolicy.SKIP)))
                .isInstanceOfSatisfying(VideoException.class, e -> {
                    assertThat(e.reason()).isEqualTo(FailureReason.OUT_OF_RANGE);
                    assertThat(e.getMessage()).contains("30 frames");
                });
    }

    @Test
    void resampledClipsShiftByTime() {
        DecodedClip clip = decode(ClipSpec.resampled(0.9, 0.5, 10));
        assertThat(clip.frameIndices()).containsExactly(17, 20, 23, 26, 29); // ends on the last frame
        assertThat(clip.shifted()).isTrue();
        DecodedClip upsampled = decode(ClipSpec.resampled(0, 0.2, 60));
        assertThat(upsampled.frameIndices()).containsExactly(0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6);
    }

    private static DecodedClip decode(ClipSpec spec) {
        MemorySegment out = arena.allocate((long) spec.frameCount() * 16 * 16 * 3);
        DecodedClip clip = decoder.decode(video, new ClipRequest(spec, Resize.stretch(16, 16), out));
        assertThat(clip.ptsSeconds()).hasSize(spec.frameCount());
        return clip;
    }
}
