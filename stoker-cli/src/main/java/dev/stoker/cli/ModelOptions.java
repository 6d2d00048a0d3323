package dev.stoker.cli;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.tune.ModelSpec;
import dev.stoker.tune.ModelStep;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The model a command trains ({@code train}, {@code headspace --model}): built by the DJL module on demand. */
final class ModelOptions {
    /** The options of the parameters a model's builders check ({@code ModelSpec}, the DJL module). */
    private static final Map<String, String> OPTIONS = Map.of("width", "--width", "learningRate", "--lr", "device", "--device");

    @Option(names = "--model", paramLabel = "NAME") String model;
    @Option(names = "--width", defaultValue = "0.125", paramLabel = "W") double width;
    @Option(names = "--lr", defaultValue = "0.001", paramLabel = "X") double learningRate;
    @Option(names = "--model-seed", defaultValue = "42", paramLabel = "N") long modelSeed;
    @Option(names = "--device", defaultValue = "cpu", paramLabel = "cpu|cuda:N") String device;

    /** The model, built for {@code classes} and the loader's layout; usage errors name the option. */
    ModelStep open(CommandSpec spec, int classes, LoaderOptions options) {
        if (!device.matches("cpu|cuda:\\d+")) {
            throw new ParameterException(spec.commandLine(), "--device: " + device + " (expected: cpu or cuda:N)");
        }
        ModelSpec modelSpec;
        try {
            modelSpec = new ModelSpec(model, width, Math.max(2, classes), device, learningRate, modelSeed,
                    options.batch().layout().name());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), CliErrors.asOption(e, OPTIONS));
        }
        try {
            return DjlModule.open(modelSpec);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), CliErrors.asOption(e, OPTIONS));
        }
    }
}
