package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * How close the GPU kernel's pixels must be to the CPU path's swscale: a mean absolute difference of at most
 * 3.5 levels, and at most 5% of the bytes more than 24 apart. The basis: the kernel's source run on the CPU
 * ({@link Nv12KernelOnCpuTest}) against swscale on the shared samples gave means of 1.5 to 2.4 levels
 * (swscale's fast path truncates, so the kernel is 1.2 to 1.8 levels brighter on average) and, on the sharp
 * colour bars of torchcodec_bt709_full_range.mp4, 3.0 with 3.9% of bytes more than 24 apart: swscale without
 * full chroma interpolation gives each pair of output pixels one chroma value, the kernel one per pixel.
 */
final class PixelTolerance {
    static final double MEAN_ABSOLUTE_DIFFERENCE = 3.5;
    static final int FAR_LEVELS = 24;
    static final double FAR_SHARE = 0.05;

    private PixelTolerance() {
    }

    static void assertWithin(MemorySegment actual, MemorySegment expected, String what) {
        assertThat(actual.byteSize()).as(what + ": bytes").isEqualTo(expected.byteSize());
        long total = 0;
        long far = 0;
        for (long i = 0; i < actual.byteSize(); i++) {
            int d = Math.abs(Byte.toUnsignedInt(actual.get(ValueLayout.JAVA_BYTE, i))
                    - Byte.toUnsignedInt(expected.get(ValueLayout.JAVA_BYTE, i)));
            total += d;
            if (d > FAR_LEVELS) {
                far++;
            }
        }
        assertThat((double) total / actual.byteSize()).as(what + ": mean absolute difference")
                .isLessThanOrEqualTo(MEAN_ABSOLUTE_DIFFERENCE);
        assertThat((double) far / actual.byteSize()).as(what + ": share of bytes more than " + FAR_LEVELS + " apart")
                .isLessThanOrEqualTo(FAR_SHARE);
    }
}
