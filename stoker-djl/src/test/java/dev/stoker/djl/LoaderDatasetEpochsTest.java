package dev.stoker.djl;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.Device;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.EasyTrain;
import ai.djl.training.dataset.Batch;
import dev.stoker.djl.internal.ClipArrays;
import dev.stoker.djl.internal.TorchRuntime;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.video.loader.VideoLoader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;


/** DJL's own loops over a Stoker loader: epochs end where the loader's do, resume continues exactly. */
class LoaderDatasetEpochsTest {

    @Test
    void easyTrainFitRunsEpochsOfTheLoader() throws Exception {
        LoaderOptions options = DemoClips.options(5, BatchLayout.NCTHW, -1);
        try (VideoClassifier model = VideoClassifier.r3d(0.0625, DemoClips.SPEC.classCount(), Device.cpu(), 1e-3f, 3);
             VideoLoader loader = VideoLoader.open(Dataset.open(DemoClips.root()), options)) {
            model.initialize(new Shape(5, 3, 8, 56, 56));
            List<ClipBatch> handedOut = new ArrayList<>();
            LoaderDataset<?> dataset = LoaderDataset.of(loader, options, (ClipBatch b, ai.djl.ndarray.NDManager m) -> {
                handedOut.add(b);
                return ClipArrays.of(b, m);
            });
            EasyTrain.fit(model.trainer(), 2, dataset, null);
            // 16 videos, one clip each per epoch: 2 epochs done, the loader's state at the start of the third.
            assertThat(dataset.state().epoch()).isEqualTo(2);
            assertThat(dataset.state().position()).isZero();
            assertThat(dataset.failures()).isEmpty();
            assertThat(handedOut).hasSize(8).allMatch(ClipBatch::isClosed, "closed with its DJL batch");
        }
    }

    @Test
    void epochsSplitWhereTheLoaderMovesOnAndResumeContinuesThere() throws Exception {
        LoaderOptions options = DemoClips.options(5, BatchLayout.NTHWC, -1);
        Dataset data = Dataset.open(DemoClips.root());
        List<long[]> labelsAfterResume = new ArrayList<>();
        SamplerState midEpoch;
        List<long[]> expected = new ArrayList<>();
        try (ai.djl.ndarray.NDManager root = TorchRuntime.engine().newBaseManager();
             VideoLoader loader = VideoLoader.open(data, options)) {
            LoaderDataset<?> dataset = LoaderDataset.of(loader, options);
            List<Long> sizes = new ArrayList<>();
            List<Long> progress = new ArrayList<>();
            for (Batch b : dataset.getData(root)) {
                try (b) {
                    sizes.add((long) b.getSize());
                    progress.add(b.getProgress());
                    assertThat(b.getProgressTotal()).isEqualTo(4);
                }
            }
            assertThat(sizes).containsExactly(5L, 5L, 5L, 1L); // 16 clips: the short last batch ends the epoch
            assertThat(progress).containsExactly(0L, 1L, 2L, 3L);
            var second = dataset.getData(root).iterator();
            second.next().close();
            midEpoch = dataset.state();
            while (second.hasNext()) {
                try (Batch b = second.next()) {
                    expected.add(b.getLabels().singletonOrThrow().toLongArray());
                }
            }
        }
        assertThat(midEpoch.epoch()).isEqualTo(1);
        assertThat(midEpoch.position()).isEqualTo(5);
        try (ai.djl.ndarray.NDManager root = TorchRuntime.engine().newBaseManager();
             VideoLoader loader = VideoLoader.open(data, options, Opening.defaults().resumingFrom(midEpoch))) {
            for (Batch b : LoaderDataset.of(loader, options).getData(root)) {
                try (b) {
                    labelsAfterResume.add(b.getLabels().singletonOrThrow().toLongArray());
                }
            }
        }
        assertThat(labelsAfterResume).containsExactlyElementsOf(expected);
    }
}
