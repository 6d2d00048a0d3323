package dev.stoker.djl;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.stoker.djl.internal.R3d;
import dev.stoker.djl.internal.TorchRuntime;
import org.junit.jupiter.api.Test;

/** R3D-18 in DJL blocks has torchvision's structure: its parameter count, its output shape. */
class R3dMatchesTorchvisionTest {

    @Test
    void fullWidthHasTorchvisionsParameterCount() {
        // torchvision.models.video.r3d_18() (400 classes): sum(p.numel() for p in m.parameters()) == 33,371,472.
        try (VideoClassifier model = VideoClassifier.r3d(1.0, 400, Device.cpu(), 1e-3f, 1)) {
            model.initialize(new Shape(1, 3, 16, 112, 112));
            assertThat(model.trainableParameters()).isEqualTo(33_371_472L);
        }
    }

    @Test
    void widthScalesEveryStage() {
        assertThat(R3d.channels(1.0)).containsExactly(64, 128, 256, 512);
        assertThat(R3d.channels(0.125)).containsExactly(8, 16, 32, 64);
        assertThat(R3d.channels(0.01)).containsExactly(1, 1, 3, 5);
    }

    @Test
    void tinyWidthMapsClipsToLogitsHalvingTimeAndSpace() {
        try (VideoClassifier model = VideoClassifier.r3d(0.125, 5, Device.cpu(), 1e-3f, 1);
             NDManager m = TorchRuntime.engine().newBaseManager()) {
            model.initialize(new Shape(2, 3, 8, 56, 56));
            NDArray x = m.randomNormal(new Shape(2, 3, 8, 56, 56));
            NDList out = model.trainer().evaluate(new NDList(x));
            assertThat(out.singletonOrThrow().getShape()).isEqualTo(new Shape(2, 5));
            // The block's shape inference (used to create the parameters) agrees with what ran.
            Shape[] inferred = model.trainer().getModel().getBlock().getOutputShapes(new Shape[] {new Shape(2, 3, 8, 56, 56)});
            assertThat(inferred[0]).isEqualTo(new Shape(2, 5));
        }
    }
}
