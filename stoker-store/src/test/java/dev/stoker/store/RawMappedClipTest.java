package dev.stoker.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.loader.clip.Resize;
import dev.stoker.store.internal.MappedClip;
import dev.stoker.store.internal.SampleInfo;
import dev.stoker.store.loader.ShardLoader;
import dev.stoker.store.shard.internal.RecordEntry;
import dev.stoker.video.ClipDecoder;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.Video;
import dev.stoker.video.VideoPackets;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Raw clips at their stored scale are located, not copied ({@link ClipReader#locate}), and copied once
 * ({@link MappedClip#copyTo}): the decoder path's frames, timestamps and pixels (rawvideo frames through the
 * converter), by rows for a crop and by whole frames at the stored width; clips
 * that need scaling, and formats that store no RGB frames, are not located. {@link ShardLoader}'s NTHWC batches,
 * whose raw clips collate copies straight from the mapping, equal its NCTHW batches, whose clips go through a
 * clip buffer and a transpose.
 */
class RawMappedClipTest {
    @TempDir
    Path dest;

    @Test
    void locatedClipsCopyTheDecodersPixels() throws IOException {
        DemoSource.ingest(dest, IngestOptions.Format.RAW); // 149x112 frames
        // Every kind of clip, selected among the stored frames as a video of them selects (one past the end, shifted).
        List<ClipSpec> specs = List.of(ClipSpec.frames(0, 8, 2), ClipSpec.frames(0.77, 4, 1),
                ClipSpec.resampled(0.3, 1.0, 7.5), ClipSpec.linspace(0.1, 1.2, 5),
                ClipSpec.frames(1000, 4, 1).withPastEnd(PastEndPolicy.SHIFT));
        try (ShardDataset shards = ShardDataset.open(dest); ClipReader reader = shards.newReader();
             ClipDecoder decoder = new ClipDecoder(); Arena arena = Arena.ofConfined()) {
            for (int i = 0; i < shards.size(); i++) {
                SampleInfo info = shards.sample(i);
                List<Resize> cuts = List.of(Resize.centerCrop(112, 112, 112), Resize.randomCrop(112, 96, 80, 42),
                        Resize.original(), Resize.stretch(info.width(), info.height()));
                try (Video video = storedVideo(shards, i)) {
                    for (Resize cut : cuts) {
                        List<MappedClip> located = reader.locate(i, specs, Collections.nCopies(specs.size(), cut));
                        assertThat(located).as("sample %d %s", i, cut).hasSize(specs.size());
                        for (int c = 0; c < specs.size(); c++) {
                            MappedClip clip = located.get(c);
                            MemorySegment expected = arena.allocate(clip.byteSize());
                            MemorySegment actual = arena.allocate(clip.byteSize());
                            DecodedClip decoded = decoder.decode(video, new ClipRequest(specs.get(c), cut, expected));
                            clip.copyTo(actual);
                            String what = "sample " + i + " " + specs.get(c) + " " + cut;
                            assertThat(clip.clip().frameIndices()).as(what).isEqualTo(decoded.frameIndices());
                            assertThat(clip.clip().ptsSeconds()).as(what).isEqualTo(decoded.ptsSeconds());
                            assertThat(clip.clip().shifted()).as(what).isEqualTo(decoded.shifted());
                            assertThat(clip.clip().repeatedFrames()).as(what).isEqualTo(decoded.repeatedFrames());
                            assertThat(clip.byteSize()).as(what).isEqualTo(decoded.frameCount() * decoded.frameBytes());
                            assertThat(actual.mismatch(expected)).as(what + " pixels").isEqualTo(-1);
                        }
                    }
                }
                assertThat(reader.locate(i, specs.subList(0, 2), List.of(Resize.centerCrop(64, 64, 64), Resize.centerCrop(112, 112, 112))))
                        .as("a clip that needs scaling").isNull();
            }
        }
    }

    /** The stored frames of sample {@code i} as a video, which the decoder path (rawvideo, the converter) reads. */
    private static Video storedVideo(ShardDataset shards, int i) {
        RecordEntry entry = ShardDatasetAccess.entry(shards, i);
        VideoPackets packets = new VideoPackets(entry.codecName(), entry.width(), entry.height(), entry.pixelFormat(),
                entry.timeBaseNumerator(), entry.timeBaseDenominator(), entry.framesPerSecond(), entry.extradata(),
                shards.clipBytes(i, List.of()), entry.pts(), entry.durations(), entry.keyframes(), entry.offsets(),
                entry.sizes());
        return Video.fromPackets(shards.sample(i).sourcePath().toString(), packets);
    }

    @Test
    void formatsWithoutRgbFramesAreNotLocated(@TempDir Path jpeg) throws IOException {
        DemoSource.ingest(jpeg, IngestOptions.Format.JPEG);
        try (ShardDataset shards = ShardDataset.open(jpeg); ClipReader reader = shards.newReader()) {
            assertThat(reader.locate(0, List.of(ClipSpec.frames(0, 4, 1)), List.of(Resize.centerCrop(112, 112, 112))))
                    .isNull();
        }
    }

    @Test
    void loaderBatchesFromTheMappingEqualBatchesThroughClipBuffers() throws IOException {
        DemoSource.ingest(dest, IngestOptions.Format.RAW);
        LoaderOptions options = LoaderOptions.builder().clip(6, 2)
                .size(96, 80, Resize.Mode.SHORT_SIDE_RANDOM_CROP, 112) // stored short side: a cut, no scaling
                .clipStarts(LoaderOptions.ClipStarts.RANDOM, 2, 1.0).order(11, true, 2).build();
        try (ShardDataset shards = ShardDataset.open(dest);
             ShardLoader mapped = ShardLoader.open(shards, options.toBuilder().batch(3, false, BatchLayout.NTHWC).build());
             ShardLoader buffered = ShardLoader.open(shards, options.toBuilder().batch(3, false, BatchLayout.NCTHW).build())) {
            List<byte[]> fromMapping = new ArrayList<>();
            List<ClipInfo> mappedClips = new ArrayList<>();
            for (ClipBatch batch : mapped) {
                try (batch) {
                    fromMapping.add(batch.data().toArray(ValueLayout.JAVA_BYTE));
                    mappedClips.addAll(batch.clips());
                }
            }
            List<byte[]> fromBuffers = new ArrayList<>();
            List<ClipInfo> bufferedClips = new ArrayList<>();
            for (ClipBatch batch : buffered) {
                try (batch) {
                    fromBuffers.add(toThwc(batch));
                    bufferedClips.addAll(batch.clips());
                }
            }
            assertThat(mapped.pipeline().failures()).isEmpty();
            assertThat(mappedClips).hasSize(2 * 2 * shards.size());
            assertThat(mappedClips).usingRecursiveFieldByFieldElementComparator().isEqualTo(bufferedClips);
            assertThat(fromMapping).hasSameSizeAs(fromBuffers);
            for (int b = 0; b < fromMapping.size(); b++) {
                assertThat(fromMapping.get(b)).as("batch %d", b).isEqualTo(fromBuffers.get(b));
            }
        }
    }

    /** An NCTHW batch's pixels in NTHWC order. */
    private static byte[] toThwc(ClipBatch batch) {
        long[] s = batch.shape(); // n, c, t, h, w
        int n = (int) s[0];
        int channels = (int) s[1];
        int pixels = (int) (s[2] * s[3] * s[4]);
        byte[] planar = batch.data().toArray(ValueLayout.JAVA_BYTE);
        byte[] packed = new byte[planar.length];
        for (int clip = 0; clip < n; clip++) {
            int base = clip * channels * pixels;
            for (int c = 0; c < channels; c++) {
                for (int p = 0; p < pixels; p++) {
                    packed[base + p * channels + c] = planar[base + c * pixels + p];
                }
            }
        }
        return packed;
    }
}
