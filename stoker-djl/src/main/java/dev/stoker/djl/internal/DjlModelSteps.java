package dev.stoker.djl.internal;

import ai.djl.Device;
import dev.stoker.djl.VideoClassifier;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.tune.ModelSpec;
import dev.stoker.tune.ModelStep;
import dev.stoker.tune.ModelSteps;
import dev.stoker.tune.TensorBatch;
import java.util.List;
import java.util.Locale;

/**
 * The models this module trains, as the {@link ModelSteps} service that {@code stoker train} and
 * {@code stoker headspace --model} load: {@code r3d} ({@link R3d}).
 */
public final class DjlModelSteps implements ModelSteps {

    @Override
    public List<String> models() {
        return List.of("r3d");
    }

    @Override
    public ModelStep open(ModelSpec spec) {
        if (!spec.model().equals("r3d")) {
            throw new IllegalArgumentException("model: " + spec.model() + " (expected one of " + models() + ")");
        }
        Device device = TorchRuntime.device(spec.device());
        VideoClassifier classifier = VideoClassifier.r3d(spec.width(), spec.classes(), device, (float) spec.learningRate(),
                spec.seed());
        return new Step(classifier, BatchLayout.valueOf(spec.layout()), spec);
    }

    /** One step per lent batch: its arrays are a view of the batch's memory, freed before the step returns. */
    private static final class Step implements ModelStep {
        private final VideoClassifier classifier;
        private final BatchLayout layout;
        private final ModelSpec spec;
        private double lastLoss = Double.NaN;

        Step(VideoClassifier classifier, BatchLayout layout, ModelSpec spec) {
            this.classifier = classifier;
            this.layout = layout;
            this.spec = spec;
        }

        @Override
        public void accept(TensorBatch batch) {
            try (BatchArrays arrays = ClipArrays.view(batch, layout, classifier.manager())) {
                lastLoss = classifier.trainStep(arrays);
            }
        }

        @Override
        public double lastLoss() { return lastLoss; }

        @Override
        public String description() {
            String params = Double.isNaN(lastLoss) ? "" : String.format(Locale.ROOT, " (%.2f M parameters)",
                    classifier.trainableParameters() / 1e6);
            return String.format(Locale.ROOT, "%s width %s%s, %d classes, Adam lr %s, on %s (libtorch %s, %s threads, OMP_WAIT_POLICY %s)",
                    spec.model(), spec.width(), params, spec.classes(), spec.learningRate(), spec.device(),
                    TorchRuntime.engine().getVersion(), System.getProperty("ai.djl.pytorch.num_threads"),
                    TorchRuntime.ompWaitPolicy());
        }

        @Override
        public void close() {
            classifier.close();
        }
    }
}
