package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.clip.VideoInfo;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


/**
 * A {@link Video} built from packets ({@link Video#fromPackets}, no container) decodes the same frames,
 * at the same timestamps and with the same pixels, as the container it was taken from.
 */
class VideoFromPacketsTest {
    @TempDir
    static Path directory;
    static List<Path> videos;

    @BeforeAll
    static void generate() throws IOException {
        DemoDataset.create(directory, DemoSpec.small(1, 4, 2.0)); // clip 3 is VP8 in WebM, the rest H.264 in MP4
        try (Stream<Path> files = Files.walk(directory)) {
            videos = files.filter(p -> p.toString().matches(".*_\\d{3}\\.(mp4|webm)")).sorted().toList();
        }
        assertThat(videos).hasSize(4);
    }

    /** Copies every packet of {@code video} into {@code arena}, padded, as a {@link VideoPackets}. */
    static VideoPackets packetsOf(Video video, Arena arena) {
        PacketStore store = video.packets();
        int n = store.count();
        long total = 0;
        for (int i = 0; i < n; i++) {
            total += store.sizeBytes(i) + VideoPackets.PADDING_BYTES;
        }
        MemorySegment data = arena.allocate(total, 64);
        long[] pts = new long[n];
        long[] durations = new long[n];
        boolean[] keys = new boolean[n];
        long[] offsets = new long[n];
        int[] sizes = new int[n];
        long at = 0;
        for (int i = 0; i < n; i++) {
            MemorySegment.copy(MemorySegment.ofAddress(store.address(i)).reinterpret(store.sizeBytes(i)), 0, data, at,
                    store.sizeBytes(i));
            pts[i] = store.pts(i);
            durations[i] = store.duration(i);
            keys[i] = (store.flags(i) & FrameTimeline.FLAG_KEY) != 0;
            offsets[i] = at;
            sizes[i] = store.sizeBytes(i);
            at += store.sizeBytes(i) + VideoPackets.PADDING_BYTES;
        }
        var parameters = video.codecParameters();
        byte[] extradata = new byte[Math.max(0, parameters.extradata_size())];
        if (extradata.length > 0) {
            parameters.extradata().get(extradata, 0, extradata.length);
        }
        VideoInfo info = video.info();
        return new VideoPackets(info.codec(), info.codedWidth(), info.codedHeight(), info.pixelFormat(),
                info.timeBaseNumerator(), info.timeBaseDenominator(), info.framesPerSecond(), extradata, data, pts,
                durations, keys, offsets, sizes);
    }

    @Test
    void packetsDecodeTheSameFramesAsTheContainer() {
        List<ClipSpec> specs = List.of(
                ClipSpec.frames(0, 8, 2),
                ClipSpec.frames(0.9, 16, 1),
                ClipSpec.frames(1.7, 8, 3),                       // runs past the end: shifted
                ClipSpec.resampled(0.25, 1.0, 10),
                ClipSpec.frames(1.9, 4, 2).withPastEnd(PastEndPolicy.REPEAT_LAST));
        Resize resize = Resize.centerCrop(112, 112, 112);
        long clipBytes = 16L * 112 * 112 * 3;
        try (Arena arena = Arena.ofConfined(); ClipDecoder decoder = new ClipDecoder()) {
            for (Path path : videos) {
                try (Video container = Video.open(path); Video packets = Video.fromPackets("packets:" + path,
                        packetsOf(container, arena))) {
                    assertThat(packets.frameCount()).as(path.toString()).isEqualTo(container.frameCount());
                    assertThat(packets.info().durationSeconds()).isEqualTo(container.info().durationSeconds());
                    for (int f = 0; f < container.frameCount(); f++) {
                        assertThat(packets.frameTimeSeconds(f)).isEqualTo(container.frameTimeSeconds(f));
                    }
                    for (ClipSpec spec : specs) {
                        MemorySegment expected = arena.allocate(clipBytes);
                        MemorySegment actual = arena.allocate(clipBytes);
                        DecodedClip a = decoder.decode(container, new ClipRequest(spec, resize, expected));
                        DecodedClip b = decoder.decode(packets, new ClipRequest(spec, resize, actual));
                        assertThat(b.frameIndices()).as(path + " " + spec).isEqualTo(a.frameIndices());
                        assertThat(b.ptsSeconds()).isEqualTo(a.ptsSeconds());
                        assertThat(packets.selectClip(spec).frames()).containsExactly(
                                a.frameIndices().stream().mapToInt(Integer::intValue).toArray());
                        assertThat(actual.mismatch(expected)).as(path + " " + spec + " pixels").isEqualTo(-1);
                    }
                }
            }
        }
    }

    @Test
    void packetsOutsideTheirDataAreRefused() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(100);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new VideoPackets("h264", 64, 64, "yuv420p", 1, 30, 30,
                    new byte[0], data, new long[] {0}, new long[] {1}, new boolean[] {true}, new long[] {50},
                    new int[] {10})).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("packet 0");
        }
    }
}
