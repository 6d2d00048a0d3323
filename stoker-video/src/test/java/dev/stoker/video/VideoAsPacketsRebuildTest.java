package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.clip.VideoInfo;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import dev.stoker.video.demo.MixedVideos;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;


/**
 * A video opened from a container, taken apart with {@link Video#asPackets} and rebuilt with
 * {@link Video#copyFromPackets} (what crosses from a child JVM after demux), is the same video: equal
 * {@link VideoInfo}, the same frame times, and clips with the same frames and byte-identical pixels. Over
 * every healthy shared sample (B-frames with negative dts, AVI without pts, rotation, 10-bit, VFR, several
 * codecs) and the demo dataset's files.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class VideoAsPacketsRebuildTest {

    private static final List<ClipSpec> SPECS = List.of(
            ClipSpec.frames(0, 8, 2),
            ClipSpec.frames(0.4, 6, 1),
            ClipSpec.resampled(0.1, 0.5, 8).withPastEnd(PastEndPolicy.REPEAT_LAST),
            ClipSpec.frames(1e6, 4, 1));   // past the end: shifted onto the last frames
    private static final Resize RESIZE = Resize.centerCrop(64, 64, 64);
    private static final long CLIP_BYTES = 8L * 64 * 64 * 3;

    @Test
    void sampleVideosRebuiltFromTheirPacketsAreTheSameVideos() {
        List<Path> files = SampleVideos.healthy().stream().map(SampleVideos.Entry::path).toList();
        assertThat(files).isNotEmpty();
        assertRebuildsIdentically(files);
    }

    @Test
    void videosOfManyKindsRebuiltFromTheirPacketsAreTheSameVideos() {
        // B-frames, MPEG-4 in AVI (no pts), a rotated MOV, 10-bit, HEVC, VP9 (the ffmpeg command's), VP8.
        assertRebuildsIdentically(MixedVideos.files());
    }

    @Test
    void demoVideosRebuiltFromTheirPacketsAreTheSameVideos(@TempDir Path dir) throws IOException {
        DemoDataset.create(dir, DemoSpec.small(1, 4, 1.0));   // H.264 in MP4 with B-frames, and VP8 in WebM
        List<Path> files;
        try (Stream<Path> walk = Files.walk(dir)) {
            files = walk.filter(p -> p.toString().matches(".*\\.(mp4|webm)")).sorted().toList();
        }
        assertThat(files).hasSize(4);
        assertRebuildsIdentically(files);
    }

    private static void assertRebuildsIdentically(List<Path> files) {
        List<String> checked = new ArrayList<>();
        try (Arena arena = Arena.ofConfined(); ClipDecoder decoder = new ClipDecoder()) {
            MemorySegment expected = arena.allocate(CLIP_BYTES);
            MemorySegment actual = arena.allocate(CLIP_BYTES);
            for (Path path : files) {
                String name = path.toString();
                try (Video opened = Video.open(path)) {
                    Video rebuilt;
                    try (Arena transient_ = Arena.ofConfined()) {
                        // As through the ring: the packets exist only during the rebuild.
                        VideoPackets packets = opened.asPackets();
                        MemorySegment slot = transient_.allocate(packets.data().byteSize(), 64).copyFrom(packets.data());
                        rebuilt = Video.copyFromPackets(name, withData(packets, slot));
                        slot.fill((byte) 0x5A);
                    }
                    try (rebuilt) {
                        assertThat(rebuilt.info()).as(name).isEqualTo(opened.info());
                        for (int f = 0; f < opened.frameCount(); f++) {
                            assertThat(rebuilt.frameTimeSeconds(f)).as(name + " frame " + f).isEqualTo(opened.frameTimeSeconds(f));
                        }
                        for (ClipSpec spec : SPECS) {
                            expected.fill((byte) 0);
                            actual.fill((byte) 1);
                            DecodedClip a;
                            try {
                                a = decoder.decode(opened, new ClipRequest(spec, RESIZE, expected));
                            } catch (VideoException e) {   // too short for the clip: the rebuilt one must say the same
                                assertThatThrownBy(() -> decoder.decode(rebuilt, new ClipRequest(spec, RESIZE, actual)))
                                        .as(name + " " + spec).isInstanceOf(VideoException.class)
                                        .hasFieldOrPropertyWithValue("reason", e.reason());
                                continue;
                            }
                            DecodedClip b = decoder.decode(rebuilt, new ClipRequest(spec, RESIZE, actual));
                            assertThat(b.frameIndices()).as(name + " " + spec).isEqualTo(a.frameIndices());
                            assertThat(b.ptsSeconds()).as(name + " " + spec).isEqualTo(a.ptsSeconds());
                            long used = (long) a.frameIndices().size() * 64 * 64 * 3;
                            assertThat(actual.asSlice(0, used).mismatch(expected.asSlice(0, used)))
                                    .as(name + " " + spec + " pixels").isEqualTo(-1);
                        }
                    }
                }
                checked.add(path.getFileName().toString());
            }
        }
        assertThat(checked).hasSameSizeAs(files);
    }

    private static VideoPackets withData(VideoPackets p, MemorySegment data) {
        return new VideoPackets(p.codecName(), p.width(), p.height(), p.pixelFormat(), p.timeBaseNumerator(),
                p.timeBaseDenominator(), p.framesPerSecond(), p.extradata(), data, p.pts(), p.durations(), p.keyframes(),
                p.offsets(), p.sizes(), p.demuxed());
    }
}
