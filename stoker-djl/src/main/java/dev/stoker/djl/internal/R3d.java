package dev.stoker.djl.internal;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.nn.Blocks;
import ai.djl.nn.ParallelBlock;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.convolutional.Conv3d;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.BatchNorm;
import ai.djl.nn.pooling.Pool;
import dev.stoker.pipeline.InvalidValueException;
import java.util.List;

/**
 * R3D-18 as torchvision defines it ({@code torchvision.models.video.r3d_18}), in DJL blocks, with a width
 * multiplier on every stage's channels.
 *
 * <p>Stem: a 3×7×7 convolution with stride 1×2×2 (no bias), batch norm, ReLU. Then 4 stages of 2
 * BasicBlocks (two 3×3×3 convolutions, each with batch norm, and a residual; the first block of stages 2–4
 * halves time and space with stride 2 and projects the shortcut with a 1×1×1 convolution and batch norm),
 * with 64, 128, 256, 512 channels at width 1. Global average pooling and a linear classifier. At width 1
 * with 400 classes it has torchvision's 33,371,472 trainable parameters; at width 0.125 (8 to 64 channels)
 * a step on 2 CPU cores takes on the order of 100 ms for 8 clips of 16×112×112.
 */
public final class R3d {
    private static final int[] BASE_CHANNELS = {64, 128, 256, 512};

    private R3d() {
    }

    /** The channels of the 4 stages at {@code width} (at least 1 each). */
    public static int[] channels(double width) {
        if (!(width > 0)) {
            throw new InvalidValueException("width", width, "> 0");
        }
        int[] c = new int[BASE_CHANNELS.length];
        for (int i = 0; i < c.length; i++) {
            c[i] = Math.max(1, (int) Math.round(BASE_CHANNELS[i] * width));
        }
        return c;
    }

    /** The network: input {@code [N, 3, T, H, W]} float, output {@code [N, classes]} logits. */
    public static Block build(double width, int classes) {
        if (classes < 1) {
            throw new IllegalArgumentException("classes: " + classes + " (expected: 1+)");
        }
        int[] channels = channels(width);
        SequentialBlock net = new SequentialBlock()
                .add(conv(channels[0], new Shape(3, 7, 7), new Shape(1, 2, 2), new Shape(1, 3, 3)))
                .add(batchNorm())
                .add(Activation.reluBlock());
        int in = channels[0];
        for (int stage = 0; stage < channels.length; stage++) {
            for (int block = 0; block < 2; block++) {
                boolean downsample = stage > 0 && block == 0;
                net.add(basicBlock(in, channels[stage], downsample ? 2 : 1));
                in = channels[stage];
            }
        }
        return net.add(Pool.globalAvgPool3dBlock())
                .add(Blocks.batchFlattenBlock())
                .add(Linear.builder().setUnits(classes).build());
    }

    private static Block basicBlock(int in, int out, int stride) {
        Shape strides = new Shape(stride, stride, stride);
        SequentialBlock main = new SequentialBlock()
                .add(conv(out, new Shape(3, 3, 3), strides, new Shape(1, 1, 1)))
                .add(batchNorm())
                .add(Activation.reluBlock())
                .add(conv(out, new Shape(3, 3, 3), new Shape(1, 1, 1), new Shape(1, 1, 1)))
                .add(batchNorm());
        Block shortcut = stride == 1 && in == out ? Blocks.identityBlock()
                : new SequentialBlock()
                        .add(conv(out, new Shape(1, 1, 1), strides, new Shape(0, 0, 0)))
                        .add(batchNorm());
        return new SequentialBlock()
                .add(new ParallelBlock(
                        branches -> new NDList(branches.get(0).singletonOrThrow().add(branches.get(1).singletonOrThrow())),
                        List.of(main, shortcut)))
                .add(Activation.reluBlock());
    }

    private static Block conv(int filters, Shape kernel, Shape stride, Shape padding) {
        return Conv3d.builder().setFilters(filters).setKernelShape(kernel).optStride(stride).optPadding(padding)
                .optBias(false).build();
    }

    private static Block batchNorm() {
        return BatchNorm.builder().optEpsilon(1e-5f).build(); // torchvision's BatchNorm3d epsilon
    }
}
