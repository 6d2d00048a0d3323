package dev.stoker.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import dev.stoker.store.internal.SampleInfo;
import dev.stoker.store.shard.internal.RecordEntry;
import dev.stoker.video.ClipDecoder;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.Video;
import dev.stoker.video.VideoPackets;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Raw shards read a crop that needs no scaling (short side already at the stored size) by copying its rows
 * from the mapped frames, with exactly the pixels, frames and timestamps the decoder path (rawvideo frames
 * through the converter) gives: centre and seeded random crops; a crop that needs scaling still decodes.
 */
class RawUnscaledCropTest {
    private static Resize.Window unscaledCrop(Resize resize, RecordEntry entry) {
        return ShardClipReader.unscaledCrop(resize, resize.framing(), entry);
    }

    @TempDir
    Path dest;

    @Test
    void unscaledCropsCopyRowsWithTheConvertersPixels() throws IOException {
        DemoSource.ingest(dest, IngestOptions.Format.RAW); // 149x112 frames
        List<ClipSpec> specs = List.of(ClipSpec.frames(0, 8, 2), ClipSpec.frames(0.77, 4, 1), ClipSpec.resampled(0.3, 1.0, 8));
        // Flipped ones too (each seed draws its own mirror; the assertion below keeps a mirrored one among them), and a
        // jittered short side, which needs scaling and so decodes.
        List<Resize> crops = List.of(Resize.centerCrop(112, 112, 112), Resize.randomCrop(112, 96, 80, 42),
                Resize.randomCrop(112, 112, 112, 7), Resize.centerCrop(112, 100, 112),
                Resize.randomCrop(112, 96, 80, 3).augmented(3, 0, true), Resize.centerCrop(112, 112, 112).augmented(4, 0, true),
                Resize.centerCrop(112, 112, 112).augmented(5, 0, true), Resize.centerCrop(112, 96, 96).augmented(6, 150, true));
        assertThat(crops).as("a mirrored clip among them").anyMatch(c -> c.framing().mirrored());
        try (ShardDataset shards = ShardDataset.open(dest); ClipReader reader = shards.newReader();
             ClipDecoder decoder = new ClipDecoder(); Arena arena = Arena.ofConfined()) {
            for (int i = 0; i < shards.size(); i++) {
                RecordEntry entry = ShardDatasetAccess.entry(shards, i);
                assertThat(unscaledCrop(Resize.centerCrop(112, 112, 112), entry)).isNotNull();
                assertThat(unscaledCrop(Resize.centerCrop(64, 64, 64), entry)).isNull();
                SampleInfo info = shards.sample(i);
                MemorySegment payload = shards.clipBytes(i, List.of()); // the whole record
                VideoPackets packets = new VideoPackets(entry.codecName(), entry.width(), entry.height(),
                        entry.pixelFormat(), entry.timeBaseNumerator(), entry.timeBaseDenominator(), entry.framesPerSecond(),
                        entry.extradata(), payload, entry.pts(), entry.durations(), entry.keyframes(), entry.offsets(),
                        entry.sizes());
                try (Video video = Video.fromPackets(info.sourcePath().toString(), packets)) {
                    for (Resize crop : crops) {
                        for (ClipSpec spec : specs) {
                            long bytes = (long) spec.frameCount() * crop.width() * crop.height() * 3;
                            MemorySegment expected = arena.allocate(bytes);
                            MemorySegment actual = arena.allocate(bytes);
                            DecodedClip want = decoder.decode(video, new ClipRequest(spec, crop, expected));
                            DecodedClip got = reader.read(i, new ClipRequest(spec, crop, actual));
                            String what = "sample " + i + " " + spec + " " + crop;
                            assertThat(got.frameIndices()).as(what).isEqualTo(want.frameIndices());
                            assertThat(got.ptsSeconds()).as(what).isEqualTo(want.ptsSeconds());
                            assertThat(got.width()).as(what).isEqualTo(want.width());
                            assertThat(got.height()).as(what).isEqualTo(want.height());
                            assertThat(actual.mismatch(expected)).as(what + " pixels").isEqualTo(-1);
                        }
                    }
                }
            }
        }
    }
}
