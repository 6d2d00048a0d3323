package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;


/**
 * Decoding on one thread and converting on another (the separate convert stage) writes exactly the
 * bytes that decoding and converting in one call writes.
 */
class SeparateConvertStageTest {

    /** Made here (B-frames, rotation, 10-bit, HEVC, VP9, ...) and, where present, the shared samples. */
    static Stream<Named<Path>> videos() {
        return SampleVideos.madeAndShared("mmaction2_test_340x256.mp4", "decord_rot90.mov", "torchcodec_h265_10bit.mp4",
                "mdn_flower_vp8.webm");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("videos")
    void convertingOnAnotherThreadMatchesTheFusedPathByteForByte(Path file) throws Exception {
        try (Video video = Video.open(file); Arena arena = Arena.ofShared();
             ClipDecoder fused = new ClipDecoder(); ClipDecoder split = new ClipDecoder()) {
            double length = video.info().durationSeconds();
            List<ClipSpec> specs = List.of(ClipSpec.frames(0, 4, 1), ClipSpec.frames(length / 3, 3, 2),
                    ClipSpec.frames(length / 2, 2, 1));
            List<Resize> sizes = List.of(Resize.centerCrop(64, 64, 48), Resize.stretch(40, 30),
                    Resize.randomCrop(72, 56, 56, 7));
            List<ClipRequest> a = new ArrayList<>();
            List<ClipRequest> b = new ArrayList<>();
            for (int i = 0; i < specs.size(); i++) {
                long bytes = new ClipRequest(specs.get(i), sizes.get(i), MemorySegment.NULL).requiredBytes(video.info());
                a.add(new ClipRequest(specs.get(i), sizes.get(i), arena.allocate(bytes)));
                b.add(new ClipRequest(specs.get(i), sizes.get(i), arena.allocate(bytes)));
            }
            List<DecodedClip> expected = fused.decode(video, a);
            List<DecodedClip> actual;
            try (DecodedFrames frames = split.decodeFrames(video, b)) {
                actual = CompletableFuture.supplyAsync(() -> {
                    try (ClipConverter converter = new ClipConverter()) {
                        return converter.convert(frames);
                    }
                }).get();
            }
            assertThat(actual).isEqualTo(expected);
            for (int i = 0; i < a.size(); i++) {
                assertThat(b.get(i).destination().mismatch(a.get(i).destination())).as("clip %d", i).isEqualTo(-1);
            }
        }
    }
}
