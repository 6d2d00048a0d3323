package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.Resize;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Decoding writes a clip's frames and nothing after them: swscale writes whole blocks, past a frame's last pixel for
 * some cuts (24 bytes for a 56x40 cut of the made 192x128 HEVC and VP9 videos), which at the end of a pooled or
 * arena-allocated clip buffer overwrote the next allocation's header (glibc: "malloc(): invalid size"). A canary
 * after each destination must stay as it was.
 */
class ConverterStaysInItsFrameTest {
    private static final int CANARY_BYTES = 256;
    private static final byte CANARY = 0x5A;

    static Stream<Named<Path>> videos() {
        return SampleVideos.madeAndShared("mmaction2_test_340x256.mp4", "torchcodec_h265_128x128.mp4");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("videos")
    void nothingIsWrittenAfterTheClipsLastFrame(Path file) {
        List<Resize> resizes = List.of(Resize.centerCrop(128, 56, 40), Resize.centerCrop(128, 40, 30),
                Resize.centerCrop(128, 64, 48), Resize.centerCrop(64, 37, 23), Resize.stretch(50, 34),
                Resize.randomResizedCrop(48, 48, 0.08, 3), Resize.centerCrop(112, 112, 112).augmented(2, 160, true));
        try (Video video = Video.open(file); Arena arena = Arena.ofConfined(); ClipDecoder decoder = new ClipDecoder()) {
            for (Resize resize : resizes) {
                ClipSpec spec = ClipSpec.frames(0, 2, 1);
                long bytes = new ClipRequest(spec, resize, MemorySegment.NULL).requiredBytes(video.info());
                MemorySegment whole = arena.allocate(bytes + CANARY_BYTES);
                whole.fill(CANARY);
                decoder.decode(video, new ClipRequest(spec, resize, whole.asSlice(0, bytes)));
                for (long i = bytes; i < bytes + CANARY_BYTES; i++) {
                    assertThat(whole.get(ValueLayout.JAVA_BYTE, i)).as("%s: byte %d after the clip", resize, i - bytes)
                            .isEqualTo(CANARY);
                }
            }
        }
    }
}
