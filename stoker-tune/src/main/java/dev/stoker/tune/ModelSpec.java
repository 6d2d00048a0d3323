package dev.stoker.tune;

import dev.stoker.pipeline.InvalidValueException;
import java.util.Locale;
import java.util.Objects;

/**
 * What a {@link ModelSteps} provider builds: a model by name and width, its classes, where it runs and how
 * it is trained. Plain values, so that a command can name a model without seeing the framework behind it.
 *
 * @param model        the architecture, e.g. {@code r3d}
 * @param width        channel multiplier (1.0: the published width)
 * @param classes      outputs of the classifier
 * @param device       {@code cpu} or {@code cuda:N}
 * @param learningRate the optimiser's learning rate
 * @param seed         seeds the initial weights
 * @param layout       the batches' layout: {@code NTHWC} or {@code NCTHW}
 */
public record ModelSpec(String model, double width, int classes, String device, double learningRate, long seed,
                        String layout) {

    public ModelSpec {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(device, "device");
        if (!(width > 0) || width > 8) {
            throw new InvalidValueException("width", width, "(0, 8]");
        }
        if (classes < 2) {
            throw new InvalidValueException("classes", classes, "2+");
        }
        if (!(learningRate > 0)) {
            throw new InvalidValueException("learningRate", learningRate, "> 0");
        }
        layout = layout.toUpperCase(Locale.ROOT);
        if (!layout.equals("NTHWC") && !layout.equals("NCTHW")) {
            throw new IllegalArgumentException("layout: " + layout + " (expected: NTHWC or NCTHW)");
        }
    }
}
