package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.loader.clip.Resize;
import dev.stoker.video.internal.FrameWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;


/**
 * A {@link ClipDecoder} that hands its frames to a {@link FrameWriter} (what the GPU path draws with) gives
 * the writer exactly the frames, slots and crop the CPU path converts: a writer that converts as the CPU
 * does writes the CPU path's bytes, and the clips' descriptions are the same.
 */
class ClipDecoderFrameWriterTest {

    /** Made here (B-frames, rotation, 10-bit, HEVC, VP9, ...) and, where present, the shared samples. */
    static Stream<Named<Path>> videos() {
        return SampleVideos.madeAndShared("mmaction2_test_340x256.mp4", "decord_rot90.mov", "mdn_flower_vp8.webm");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("videos")
    void aWriterGetsEveryWantedFrameForEverySlotWithTheCpuPathsGeometry(Path file) {
        try (Video video = Video.open(file); Arena arena = Arena.ofShared();
             ClipDecoder cpu = new ClipDecoder(); FrameConverter converter = new FrameConverter()) {
            double length = video.info().durationSeconds();
            // Overlapping clips (shared frames), a clip past the end (repeated slots), a random crop.
            List<ClipSpec> specs = List.of(ClipSpec.frames(0, 4, 1), ClipSpec.frames(0, 3, 2),
                    ClipSpec.frames(length, 3, 1).withPastEnd(PastEndPolicy.REPEAT_LAST));
            List<Resize> sizes = List.of(Resize.centerCrop(64, 64, 48), Resize.randomCrop(72, 56, 56, 7),
                    Resize.stretch(40, 30));
            List<ClipRequest> expected = new ArrayList<>();
            List<ClipRequest> written = new ArrayList<>();
            int slots = 0;
            for (int i = 0; i < specs.size(); i++) {
                long bytes = new ClipRequest(specs.get(i), sizes.get(i), MemorySegment.NULL).requiredBytes(video.info());
                expected.add(new ClipRequest(specs.get(i), sizes.get(i), arena.allocate(bytes)));
                written.add(new ClipRequest(specs.get(i), sizes.get(i), arena.allocate(bytes)));
                slots += specs.get(i).frameCount();
            }
            List<FrameWriter.Target> calls = new ArrayList<>();
            FrameWriter drawing = (frame, target) -> {
                calls.add(target);
                long frameBytes = (long) target.outWidth() * target.outHeight() * 3;
                converter.convert(frame, target.rotationDegrees(), target.request().resize(), target.framing(),
                        target.outWidth(), target.outHeight(), target.request().destination(),
                        target.slot() * frameBytes, target.path());
            };
            List<DecodedClip> cpuClips = cpu.decode(video, expected);
            List<DecodedClip> writerClips;
            try (ClipDecoder viaWriter = new ClipDecoder(true, null, drawing)) {
                writerClips = viaWriter.decode(video, written);
            }
            assertThat(writerClips).isEqualTo(cpuClips);
            assertThat(calls).as("one call per slot, repeated slots included").hasSize(slots);
            assertThat(calls).allSatisfy(t -> assertThat(t.rotationDegrees()).isEqualTo(video.info().rotationDegrees()));
            for (int i = 0; i < expected.size(); i++) {
                assertThat(written.get(i).destination().mismatch(expected.get(i).destination())).as("clip %d", i)
                        .isEqualTo(-1);
            }
        }
    }
}
