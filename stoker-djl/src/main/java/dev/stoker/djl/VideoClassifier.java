package dev.stoker.djl;

import ai.djl.Device;
import ai.djl.Model;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.training.DefaultTrainingConfig;
import ai.djl.training.GradientCollector;
import ai.djl.training.Trainer;
import ai.djl.training.initializer.XavierInitializer;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import ai.djl.util.Pair;
import dev.stoker.djl.internal.BatchArrays;
import dev.stoker.djl.internal.ClipArrays;
import dev.stoker.djl.internal.R3d;
import dev.stoker.djl.internal.TorchRuntime;
import dev.stoker.loader.batch.ClipBatch;
import java.util.Locale;

/**
 * A video classifier and its trainer: a {@link Block} (e.g. {@link R3d}), softmax cross-entropy, Adam. The
 * parameters are created on the first batch (their shapes follow the clip size), from the seed.
 *
 * <pre>{@code
 * try (VideoClassifier model = VideoClassifier.r3d(0.125, classes, Device.cpu(), 1e-3f, 42);
 *      VideoLoader loader = VideoLoader.open(dataset, options)) {
 *     for (ClipBatch b : loader) {
 *         float loss = model.trainStep(b);   // closes b
 *     }
 * }
 * }</pre>
 */
public final class VideoClassifier implements AutoCloseable {
    private final Model model;
    private final Trainer trainer;
    private final String name;
    private final int seed;
    private boolean initialized;

    private VideoClassifier(String name, Block block, Device device, float learningRate, long seed) {
        Engine engine = TorchRuntime.engine();
        TorchRuntime.requireAvailable(device);
        this.name = name;
        this.seed = (int) (seed ^ (seed >>> 32));
        this.model = Model.newInstance(name, device, engine.getEngineName());
        try {
            model.setBlock(block);
            DefaultTrainingConfig config = new DefaultTrainingConfig(Loss.softmaxCrossEntropyLoss())
                    .optDevices(new Device[] {device})
                    .optOptimizer(Optimizer.adam().optLearningRateTracker(Tracker.fixed(learningRate)).build())
                    .optInitializer(new XavierInitializer(), Parameter.Type.WEIGHT);
            this.trainer = model.newTrainer(config);
        } catch (RuntimeException | Error e) {
            model.close();
            throw e;
        }
    }

    /** R3D-18 at {@code width} ({@link R3d}) on {@code device}, trained with Adam at {@code learningRate}. */
    public static VideoClassifier r3d(double width, int classes, Device device, float learningRate, long seed) {
        return new VideoClassifier(String.format(Locale.ROOT, "r3d-w%s", width), R3d.build(width, classes), device,
                learningRate, seed);
    }

    /** Any block taking {@code [N, 3, T, H, W]} float and giving {@code [N, classes]} logits. */
    public static VideoClassifier of(String name, Block block, Device device, float learningRate, long seed) {
        return new VideoClassifier(name, block, device, learningRate, seed);
    }

    /** The trainer's manager on the model's device: the parent for {@link ClipArrays#of}. */
    public ai.djl.ndarray.NDManager manager() { return trainer.getManager(); }

    /** The DJL trainer, for DJL's own loops ({@code EasyTrain.fit} over a {@link LoaderDataset}). */
    public Trainer trainer() { return trainer; }

    public Device device() {
        return trainer.getDevices()[0];
    }

    /**
     * A step on a loader's batch, as DJL arrays over the batch's own memory ({@code uint8}, no copy; the model's
     * normalised float input made from them); returns its mean loss. The batch is closed after the step, its buffer
     * back in the loader's pool.
     */
    public float trainStep(ClipBatch batch) {
        BatchArrays arrays;
        try {
            arrays = ClipArrays.of(batch, manager());
        } catch (RuntimeException | Error e) {
            batch.close();   // closed as promised: the arrays that would have closed it were never made
            throw e;
        }
        try (arrays) {
            return trainStep(arrays);
        }
    }

    /** Forward, backward and an optimiser update on one batch; returns its mean loss. */
    public float trainStep(BatchArrays batch) {
        return trainStep(batch.input(), batch.labels());
    }

    /** A step on a normalised input {@code [N, 3, T, H, W]} and {@code int64} labels {@code [N]}. */
    public float trainStep(NDArray input, NDArray labels) {
        initialize(input.getShape());
        float loss;
        try (GradientCollector collector = trainer.newGradientCollector()) {
            NDList predictions = trainer.forward(new NDList(input));
            NDArray lossValue = trainer.getLoss().evaluate(new NDList(labels), predictions);
            collector.backward(lossValue);
            loss = lossValue.getFloat();
        }
        trainer.step();
        return loss;
    }

    /** Trainable parameters (running statistics of batch norms excluded, as torchvision counts them). */
    public long trainableParameters() {
        long n = 0;
        for (Pair<String, Parameter> p : model.getBlock().getParameters()) {
            Parameter.Type type = p.getValue().getType();
            if (type != Parameter.Type.RUNNING_MEAN && type != Parameter.Type.RUNNING_VAR) {
                n += p.getValue().getArray().size();
            }
        }
        return n;
    }

    /** Creates the parameters for inputs of {@code inputShape}, once; later calls do nothing. */
    public void initialize(Shape inputShape) {
        if (!initialized) {
            Engine.getEngine(model.getNDManager().getEngine().getEngineName()).setRandomSeed(seed);
            trainer.initialize(inputShape);
            initialized = true;
        }
    }

    public String name() { return name; }

    @Override
    public void close() {
        try {
            trainer.close();
        } finally {
            model.close();
        }
    }
}
