package dev.stoker.djl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import dev.stoker.djl.internal.BatchArrays;
import dev.stoker.djl.internal.ClipArrays;
import dev.stoker.djl.internal.TorchRuntime;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.video.loader.VideoLoader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Iterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A batch as DJL arrays: its exact bytes, shape and labels, over its own memory, freed with it. */
class ClipArraysMatchBatchTest {

    @ParameterizedTest
    @EnumSource(BatchLayout.class)
    void pixelsAreTheBatchBytesInItsShapeAndLabelsMatch(BatchLayout layout) throws Exception {
        try (NDManager root = TorchRuntime.engine().newBaseManager();
             VideoLoader loader = VideoLoader.open(Dataset.open(DemoClips.root()), DemoClips.options(3, layout, 1))) {
            Iterator<ClipBatch> it = loader.iterator();
            ClipBatch batch = it.next();
            byte[] expected = batch.data().toArray(ValueLayout.JAVA_BYTE);
            long[] shape = batch.shape();
            int[] labels = batch.labels();
            assertThat(shape).containsExactly(layout == BatchLayout.NTHWC
                    ? new long[] {3, 8, 56, 56, 3} : new long[] {3, 3, 8, 56, 56});

            BatchArrays arrays = ClipArrays.of(batch, root);
            assertThat(arrays.pixels().getDataType()).isEqualTo(DataType.UINT8);
            assertThat(arrays.pixels().getShape()).isEqualTo(new Shape(shape));
            assertThat(arrays.pixels().toByteArray()).isEqualTo(expected);
            assertThat(arrays.labels().getDataType()).isEqualTo(DataType.INT64);
            assertThat(arrays.labels().toLongArray()).containsExactly(Arrays.stream(labels).asLongStream().toArray());
            assertThat(arrays.layout()).isEqualTo(layout);

            // Zero-copy: the array reads the batch's memory itself, so a byte written there shows through.
            MemorySegment data = batch.data();
            byte flipped = (byte) ~data.get(ValueLayout.JAVA_BYTE, 12345);
            data.set(ValueLayout.JAVA_BYTE, 12345, flipped);
            assertThat(arrays.pixels().toByteArray()[12345]).isEqualTo(flipped);

            arrays.close();
            assertThat(batch.isClosed()).as("the batch goes back to its pool with its arrays").isTrue();
            assertThat(it.next().isClosed()).isFalse(); // the loader goes on
        }
    }

    @ParameterizedTest
    @EnumSource(BatchLayout.class)
    void inputIsNormalisedFloatChannelsFirst(BatchLayout layout) throws Exception {
        try (NDManager root = TorchRuntime.engine().newBaseManager();
             VideoLoader loader = VideoLoader.open(Dataset.open(DemoClips.root()), DemoClips.options(2, layout, 1))) {
            ClipBatch batch = loader.iterator().next();
            try (BatchArrays arrays = ClipArrays.of(batch, root)) {
                NDArray input = arrays.input();
                assertThat(input.getDataType()).isEqualTo(DataType.FLOAT32);
                assertThat(input.getShape()).isEqualTo(new Shape(2, 3, 8, 56, 56));
                // Clip 1, channel 2 (blue), frame 5, row 17, column 40: read from the bytes in the batch's layout.
                long[] s = arrays.pixels().getShape().getShape();
                long index = layout == BatchLayout.NTHWC
                        ? (((1 * s[1] + 5) * s[2] + 17) * s[3] + 40) * s[4] + 2
                        : (((1 * s[1] + 2) * s[2] + 5) * s[3] + 17) * s[4] + 40;
                int raw = Byte.toUnsignedInt(arrays.pixels().toByteArray()[(int) index]);
                float expected = (raw / 255f - 0.37645f) / 0.216989f;
                assertThat(input.get(1, 2, 5, 17, 40).getFloat()).isCloseTo(expected, within(1e-4f));
            }
        }
    }

    @Test
    void shapeThatDoesNotCoverTheBytesIsRefused() {
        try (NDManager root = TorchRuntime.engine().newBaseManager()) {
            MemorySegment data = java.lang.foreign.Arena.ofAuto().allocate(100);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> ClipArrays.pixels(data, new long[] {1, 2, 5, 5, 3}, root))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("holds 150 bytes but the segment has 100");
        }
    }
}
