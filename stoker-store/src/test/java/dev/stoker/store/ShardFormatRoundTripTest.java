package dev.stoker.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.store.ingest.Ingest;
import dev.stoker.store.internal.SampleInfo;
import dev.stoker.video.ClipDecoder;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.Video;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every format reads back the clips that decoding the source directly gives: the same frame indices and
 * timestamps for the same {@link ClipSpec} (frame-exact), pixels equal for raw frames at the stored size
 * and within a tolerance for JPEG and H.264.
 */
class ShardFormatRoundTripTest {
    @TempDir
    Path dest;

    static final List<ClipSpec> SPECS = List.of(
            ClipSpec.frames(0, 8, 2),
            ClipSpec.frames(0.77, 16, 1),
            ClipSpec.frames(1.9, 8, 3),                                   // past the end: shifted
            ClipSpec.resampled(0.3, 1.0, 8),
            ClipSpec.frames(1.95, 4, 2).withPastEnd(PastEndPolicy.REPEAT_LAST));

    @ParameterizedTest(name = "{0}")
    @EnumSource(IngestOptions.Format.class)
    void clipsFromShardsMatchClipsDecodedFromTheSource(IngestOptions.Format format) throws IOException {
        Ingest.Result result = DemoSource.ingest(dest, format);
        Dataset source = DemoSource.dataset();
        assertThat(result.failed()).isZero();
        assertThat(result.shardsWritten()).isGreaterThan(1);
        double tolerance = switch (format) {
            case RAW -> 0;
            case JPEG -> 8.0;
            default -> 10.0;
        };
        try (ShardDataset shards = ShardDataset.open(dest); ClipReader reader = shards.newReader();
             ClipDecoder direct = new ClipDecoder(); Arena arena = Arena.ofConfined()) {
            assertThat(shards.size()).isEqualTo(source.size());
            assertThat(shards.classNames()).isEqualTo(source.classNames());
            for (int i = 0; i < shards.size(); i++) {
                SampleInfo info = shards.sample(i);
                assertThat(info.label()).isEqualTo(source.get(i).label());
                // 340x256 with short side 112: 148.75 wide, rounded (raw) or rounded to even (4:2:0 formats)
                assertThat(info.width()).isEqualTo(format.equals(IngestOptions.Format.RAW) ? 149 : 148);
                assertThat(info.height()).isEqualTo(112);
                try (Video video = Video.open(source.get(i).path())) {
                    assertThat(info.frameCount()).isEqualTo(video.frameCount());
                    assertThat(info.durationSeconds()).isCloseTo(video.info().durationSeconds(), org.assertj.core.data.Offset.offset(1e-9));
                    List<Resize> resizes = List.of(Resize.stretch(info.width(), 112), Resize.centerCrop(112, 112, 112));
                    for (Resize resize : resizes) {
                        for (ClipSpec spec : SPECS) {
                            long bytes = (long) spec.frameCount() * resize.width() * resize.height() * 3;
                            MemorySegment expected = arena.allocate(bytes);
                            MemorySegment actual = arena.allocate(bytes);
                            // The direct path decodes the source at the stored size first, as ingest did.
                            DecodedClip want = decodeLikeIngest(direct, video, spec, resize, expected, arena);
                            DecodedClip got = reader.read(i, new ClipRequest(spec, resize, actual));
                            String what = format + " sample " + i + " " + spec + " " + resize.mode();
                            assertThat(got.frameIndices()).as(what).isEqualTo(want.frameIndices());
                            assertThat(got.ptsSeconds()).as(what).isEqualTo(want.ptsSeconds());
                            assertThat(got.shifted()).isEqualTo(want.shifted());
                            assertThat(got.repeatedFrames()).isEqualTo(want.repeatedFrames());
                            double diff = meanAbsoluteDifference(expected, actual);
                            if (tolerance == 0 && resize.mode() == Resize.Mode.STRETCH) {
                                assertThat(actual.mismatch(expected)).as(what + " pixels").isEqualTo(-1);
                            } else {
                                assertThat(diff).as(what + " mean |difference|").isLessThanOrEqualTo(Math.max(tolerance, 5.0));
                            }
                        }
                    }
                }
            }
        }
    }

    /** The clip decoded from the source directly (for a crop: scaled once, where the shard path scaled twice). */
    private static DecodedClip decodeLikeIngest(ClipDecoder decoder, Video video, ClipSpec spec, Resize resize,
                                                MemorySegment destination, Arena arena) {
        return decoder.decode(video, new ClipRequest(spec, resize, destination));
    }

    static double meanAbsoluteDifference(MemorySegment a, MemorySegment b) {
        long n = a.byteSize();
        long sum = 0;
        for (long i = 0; i < n; i++) {
            sum += Math.abs((a.get(ValueLayout.JAVA_BYTE, i) & 0xFF) - (b.get(ValueLayout.JAVA_BYTE, i) & 0xFF));
        }
        return (double) sum / n;
    }
}
