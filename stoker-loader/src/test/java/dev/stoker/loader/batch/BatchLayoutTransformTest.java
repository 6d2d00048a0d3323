package dev.stoker.loader.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchLayoutTransformTest {

    private static final int T = 3;
    private static final int H = 5;
    private static final int W = 7;
    private static final int C = 3;

    /** A distinct value per (clip, t, y, x, c), so any misplaced byte shows. */
    private static byte value(int clip, int t, int y, int x, int c) {
        return (byte) (clip * 101 + t * 37 + y * 13 + x * 5 + c * 71);
    }

    private static MemorySegment clipThwc(int clip) {
        byte[] bytes = new byte[T * H * W * C];
        int i = 0;
        for (int t = 0; t < T; t++) {
            for (int y = 0; y < H; y++) {
                for (int x = 0; x < W; x++) {
                    for (int c = 0; c < C; c++) {
                        bytes[i++] = value(clip, t, y, x, c);
                    }
                }
            }
        }
        return MemorySegment.ofArray(bytes);
    }

    private static ClipInfo info(int clip) {
        return new ClipInfo(Path.of("clip" + clip + ".mp4"), 10 + clip, new double[] {0, 1.0 / 30, 2.0 / 30}, 9);
    }

    /** Where a layout puts channel c of pixel (y, x) of frame t of clip n: a byte offset into the batch. */
    private interface Position {
        long of(int n, int t, int y, int x, int c);
    }

    /** Checks every value of the two clips of {@code data} at the place {@code position} gives it. */
    private static void assertEveryValueAt(MemorySegment data, Position position) {
        for (int n = 0; n < 2; n++) {
            for (int t = 0; t < T; t++) {
                for (int y = 0; y < H; y++) {
                    for (int x = 0; x < W; x++) {
                        for (int c = 0; c < C; c++) {
                            assertThat(data.get(ValueLayout.JAVA_BYTE, position.of(n, t, y, x, c)))
                                    .isEqualTo(value(n, t, y, x, c));
                        }
                    }
                }
            }
        }
    }

    /**
     * Puts clips 0 and 1, in {@code putOrder}, into a batch of two in {@code layout}, and checks its shape, where
     * every value went, and that each clip's label and info sit in its own slot.
     */
    private static void assertCollated(BatchLayout layout, List<Integer> putOrder, long[] expectedShape,
            Position position) throws InterruptedException {
        BatchShape shape = new BatchShape(2, T, H, W, C, layout);
        try (BatchPool pool = new BatchPool(shape, 0); ClipBatch batch = pool.acquire()) {
            for (int clip : putOrder) {
                BatchCollator.put(batch, clip, clipThwc(clip), info(clip));
            }
            assertThat(batch.shape()).containsExactly(expectedShape);
            assertEveryValueAt(batch.data(), position);
            assertThat(batch.labels()).containsExactly(10, 11);
            assertThat(batch.clips()).containsExactly(info(0), info(1));
        }
    }

    @Test
    void nthwcKeepsFrameOrder() throws InterruptedException {
        assertCollated(BatchLayout.NTHWC, List.of(0, 1), new long[] {2, T, H, W, C},
                (n, t, y, x, c) -> (((((long) n * T + t) * H + y) * W + x) * C) + c);
    }

    @Test
    void ncthwPutsEachChannelInItsOwnPlane() throws InterruptedException {
        assertCollated(BatchLayout.NCTHW, List.of(1, 0), new long[] {2, C, T, H, W},
                (n, t, y, x, c) -> ((((long) n * C + c) * T + t) * H + y) * W + x);
    }

    @Test
    void partialBatchExposesTheFilledPrefixOnly() throws InterruptedException {
        BatchShape shape = new BatchShape(4, T, H, W, C, BatchLayout.NTHWC);
        try (BatchPool pool = new BatchPool(shape, 0); ClipBatch batch = pool.acquire()) {
            assertThat(batch.shape()).containsExactly(0, T, H, W, C);
            MemorySegment slot = BatchCollator.slot(batch, 0);
            MemorySegment.copy(clipThwc(0), 0, slot, 0, slot.byteSize());
            BatchCollator.commit(batch, 0, info(0));
            assertThat(batch.shape()).containsExactly(1, T, H, W, C);
            assertThat(batch.data().byteSize()).isEqualTo(shape.clipBytes());
            BatchCollator.put(batch, 2, clipThwc(2), info(2));
            assertThatThrownBy(batch::shape).isInstanceOf(IllegalStateException.class)
                    .hasMessage("slot 2 is filled but slot 1 is not (expected: slots filled as a prefix 0..n-1)");
        }
    }

    @Test
    void misuseIsReportedPrecisely() throws InterruptedException {
        BatchShape shape = new BatchShape(2, T, H, W, C, BatchLayout.NCTHW);
        try (BatchPool pool = new BatchPool(shape, 0); ClipBatch batch = pool.acquire()) {
            assertThatThrownBy(() -> BatchCollator.slot(batch, 0)).isInstanceOf(IllegalStateException.class)
                    .hasMessage("layout: NCTHW (expected: NTHWC for in-place writes; use put() to transpose)");
            assertThatThrownBy(() -> BatchCollator.put(batch, 0, MemorySegment.ofArray(new byte[10]), info(0)))
                    .hasMessage("framesThwc: 10 bytes (expected: 315 = T 3 x H 5 x W 7 x C 3)");
            assertThatThrownBy(() -> BatchCollator.put(batch, 2, clipThwc(0), info(0)))
                    .isInstanceOf(IndexOutOfBoundsException.class).hasMessage("slot: 2 (expected: 0..1)");
        }
        assertThatThrownBy(() -> BatchShape.rgb(0, 1, 1, 1)).hasMessage("clipsPerBatch: 0 (expected: 1+)");
    }
}
