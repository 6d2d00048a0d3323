package dev.stoker.djl;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import dev.stoker.djl.internal.TorchRuntime;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.video.loader.VideoLoader;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * R3D at a tiny width learns the demo classes from the loader's batches: a fixed seed, 60 steps, the loss
 * falls well below where it started. Asserts learning, not a time.
 */
class R3dLearnsDemoClassesTest {

    @Test
    void lossAfterSixtyStepsIsWellBelowTheFirst() throws Exception {
        List<Float> losses = new ArrayList<>();
        try (VideoClassifier model = VideoClassifier.r3d(0.125, DemoClips.SPEC.classCount(), Device.cpu(), 3e-3f, 42);
             NDManager root = TorchRuntime.engine().newBaseManager();
             VideoLoader loader = VideoLoader.open(Dataset.open(DemoClips.root()), DemoClips.options(8, BatchLayout.NTHWC, -1))) {
            Iterator<ClipBatch> batches = loader.iterator();
            while (losses.size() < 60) {
                losses.add(model.trainStep(batches.next()));   // the batch as arrays over its memory, then closed
            }
        }
        double first = mean(losses.subList(0, 5));
        double last = mean(losses.subList(55, 60));
        System.out.printf("loss: first 5 steps %.3f, last 5 steps %.3f; every step %s%n", first, last, losses);
        assertThat(losses).allMatch(l -> Float.isFinite(l));
        assertThat(losses.get(0)).as("an untrained 4-class model starts near ln 4").isBetween(0.7f, 3.0f);
        assertThat(last).as("mean loss of steps 56-60 vs steps 1-5 (%s)", losses).isLessThan(first * 0.6);
    }

    private static double mean(List<Float> values) {
        return values.stream().mapToDouble(Float::doubleValue).average().orElseThrow();
    }
}
