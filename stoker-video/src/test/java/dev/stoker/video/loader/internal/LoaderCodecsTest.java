package dev.stoker.video.loader.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.batch.BatchCollator;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.BatchPool;
import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.pipeline.subprocess.ItemCodec;
import dev.stoker.pipeline.subprocess.ItemCodecs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The loader's items survive the trip to a child JVM and back: what --split-after relies on. Clips and
 * batches arrive in buffers of the receiving side's pool, byte-identical, with every field.
 */
class LoaderCodecsTest {

    private static <T> T roundTrip(ItemCodec<T> codec, T item) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment slot = arena.allocate(codec.encodedBytes(item));
            codec.encode(item, slot);
            return ItemCodecs.<T>named(codec.name()).decode(slot);
        }
    }

    @Test
    void videoTasksAndFetchedVideosRoundTripWithEveryField() {
        VideoTask ranged = new VideoTask(new VideoEntry(Path.of("/data/k400/abseiling/ç 1.mp4"), 3, "abseiling",
                OptionalDouble.of(1.5), OptionalDouble.of(9.25)), 42, 2, 17, 1);
        VideoTask whole = new VideoTask(new VideoEntry(Path.of("a.webm"), 0, "x", OptionalDouble.empty(),
                OptionalDouble.empty()), 0, 0, 0, 0);
        assertThat(roundTrip(new LoaderCodecs.VideoTaskCodec(), ranged)).isEqualTo(ranged);
        assertThat(roundTrip(new LoaderCodecs.VideoTaskCodec(), whole)).isEqualTo(whole);
        for (String text : List.of("", "a dog, running \u6f22\n")) {
            VideoTask captioned = new VideoTask(new VideoEntry(Path.of("a.webm"), 0, "x", OptionalDouble.of(2),
                    OptionalDouble.empty(), Optional.of(text)), 5, 1, 2, 0);
            assertThat(roundTrip(new LoaderCodecs.VideoTaskCodec(), captioned)).as("text '%s'", text).isEqualTo(captioned);
        }
        FetchedVideo fetched = roundTrip(new LoaderCodecs.FetchedVideoCodec(), new FetchedVideo(ranged, new byte[] {9, 8, 7}));
        assertThat(fetched.task()).isEqualTo(ranged);
        assertThat(fetched.bytes()).containsExactly(9, 8, 7);
    }

    private static final VideoTask TASK = new VideoTask(new VideoEntry(Path.of("/data/k400/abseiling/ç 1.mp4"), 3,
            "abseiling", OptionalDouble.of(1.5), OptionalDouble.of(9.25)), 42, 2, 17, 1);

    private static void fillRandom(MemorySegment segment, long seed) {
        byte[] bytes = new byte[(int) segment.byteSize()];
        new Random(seed).nextBytes(bytes);
        MemorySegment.copy(bytes, 0, segment, ValueLayout.JAVA_BYTE, 0, bytes.length);
    }

    @Test
    void loadedClipsArriveInABufferOfTheReceivingPoolWithEveryField() throws InterruptedException {
        BatchShape clipShape = new BatchShape(1, 4, 6, 8, 3, BatchLayout.NTHWC);
        try (BatchPool childPool = new BatchPool(clipShape, clipShape.batchBytes());
             BatchPool parentPool = new BatchPool(clipShape, 2 * clipShape.batchBytes());
             Arena arena = Arena.ofConfined()) {
            ClipBatch pixels = childPool.acquire();
            fillRandom(BatchCollator.slot(pixels, 0), 7);
            DecodedClip decoded = new DecodedClip("/data/k400/abseiling/ç 1.mp4", 8, 6, List.of(10, 12, 14, 14),
                    List.of(0.4, 0.48, 0.56, 0.56), 23, true, 1, 9);
            LoadedClip sent = new LoadedClip(TASK, 2, 3, 0.4, pixels, decoded);
            ItemCodec<LoadedClip> child = ItemCodecs.named(LoadedClipCodec.class.getName());
            MemorySegment ring = arena.allocate(child.encodedBytes(sent));
            child.encode(sent, ring);

            try (LoadedClip got = new LoadedClipCodec(parentPool).decode(ring)) {
                assertThat(got.task()).isEqualTo(TASK);
                assertThat(got.clip()).isEqualTo(2);
                assertThat(got.clipsOfVideo()).isEqualTo(3);
                assertThat(got.startSeconds()).isEqualTo(0.4);
                assertThat(got.decoded()).isEqualTo(decoded);
                assertThat(BatchCollator.slot(got.pixels(), 0).mismatch(BatchCollator.slot(pixels, 0))).isEqualTo(-1);
                assertThat(parentPool.buffersInUse()).as("the pixels are in the receiver's pool").isEqualTo(1);
            }
            sent.close();
            assertThat(parentPool.buffersInUse()).isZero();
            assertThat(childPool.buffersInUse()).isZero();
            assertThatThrownBy(() -> child.decode(ring)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("only encodes");
        }
    }

    @Test
    void collatedBatchesArriveInABatchOfTheReceivingPoolWithPixelsLabelsTimesAndTheirEnd() throws InterruptedException {
        for (BatchLayout layout : BatchLayout.values()) {
            BatchShape shape = new BatchShape(4, 3, 6, 8, 3, layout);
            try (BatchPool childPool = new BatchPool(shape, shape.batchBytes());
                 BatchPool parentPool = new BatchPool(shape, 2 * shape.batchBytes());
                 Arena arena = Arena.ofConfined()) {
                ClipBatch batch = childPool.acquire();
                MemorySegment clip = arena.allocate(shape.clipBytes());
                for (int i = 0; i < 3; i++) {   // a short last batch: 3 of 4 slots
                    fillRandom(clip, i);
                    BatchCollator.put(batch, i, clip, new ClipInfo(Path.of("/v/clip " + i + ".mp4"), i + 5,
                            new double[] {0.1 * i, 0.1 * i + 0.04, 0.1 * i + 0.08}, 10 + i, i == 1 ? -1 : 2 * i,
                            i == 0 ? Optional.empty() : Optional.of("caption " + "\u00e9".repeat(i - 1))));
                }
                CollatedBatch sent = new CollatedBatch(batch, 1, 57, 0, 2);
                ItemCodec<CollatedBatch> child = ItemCodecs.named(CollatedBatchCodec.class.getName());
                MemorySegment ring = arena.allocate(child.encodedBytes(sent));
                child.encode(sent, ring);

                try (CollatedBatch got = new CollatedBatchCodec(parentPool).decode(ring)) {
                    assertThat(got.batch().shape()).containsExactly(batch.shape());
                    assertThat(got.batch().data().mismatch(batch.data())).as(layout + " pixels").isEqualTo(-1);
                    assertThat(got.batch().labels()).containsExactly(5, 6, 7);
                    assertThat(got.batch().clips()).isEqualTo(batch.clips());
                    assertThat(List.of(got.epoch(), got.position(), got.clip(), got.clipsOfVideo())).containsExactly(1, 57, 0, 2);
                    assertThat(parentPool.buffersInUse()).isEqualTo(1);
                }
                assertThat(parentPool.buffersInUse()).as("closing the batch returns it to the receiver's pool").isZero();
                sent.close();

                BatchShape other = new BatchShape(4, 3, 6, 8, 3, layout == BatchLayout.NTHWC ? BatchLayout.NCTHW : BatchLayout.NTHWC);
                try (BatchPool wrong = new BatchPool(other, other.batchBytes())) {
                    assertThatThrownBy(() -> new CollatedBatchCodec(wrong).decode(ring))
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("from the child (expected: " + other);
                    assertThat(wrong.buffersInUse()).isZero();
                }
            }
        }
    }
}
