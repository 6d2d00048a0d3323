package dev.stoker.cli;

import dev.stoker.tune.TensorBatch;
import dev.stoker.tune.TrainingStep;
import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code stoker headspace}'s training step when it is not a model: a synthetic step of {@code --step-ms} of CPU
 * work, or the user's own {@code --step-class}, loaded from {@code --step-classpath}.
 */
final class StepOptions {
    @Option(names = "--step-ms", paramLabel = "MS") Double stepMillis;
    @Option(names = "--step-class", paramLabel = "CLASS") String stepClass;
    @Option(names = "--step-classpath", paramLabel = "PATH") String stepClasspath;

    /** The flag that chose a step, {@code --step-class} before {@code --step-ms}; null when neither was given. */
    String given() {
        return stepClass != null ? "--step-class" : stepMillis != null ? "--step-ms" : null;
    }

    /**
     * The step these flags describe (a synthetic step of 50 ms without them), calibrated now, before decoding
     * starts; bad flags are usage errors.
     */
    TrainingStep<TensorBatch> open(CommandSpec spec) {
        if (stepMillis != null && stepClass != null) {
            throw new ParameterException(spec.commandLine(), "--step-ms and --step-class: both given (expected: one of them)");
        }
        if (stepMillis != null && !(stepMillis > 0)) {
            throw new ParameterException(spec.commandLine(), "--step-ms: " + stepMillis + " (expected: > 0)");
        }
        return stepClass != null ? loadStep(spec, stepClass) : new SyntheticStep(stepMillis != null ? stepMillis : 50);
    }

    /** Loads {@code --step-class} by name; every way it can be wrong is a usage error that says what was expected. */
    @SuppressWarnings("unchecked")
    private TrainingStep<TensorBatch> loadStep(CommandSpec spec, String name) {
        String expected = " (expected: a public class implementing dev.stoker.tune.TrainingStep<TensorBatch> with a public no-arg constructor)";
        Class<?> type;
        try {
            type = Class.forName(name, true, classLoader(spec));
        } catch (ClassNotFoundException e) {
            throw new ParameterException(spec.commandLine(), "--step-class: no class " + name + " on the class path"
                    + (stepClasspath == null ? " (add its jar or folder with --step-classpath)" : " or in --step-classpath " + stepClasspath));
        } catch (LinkageError e) {
            throw new ParameterException(spec.commandLine(), "--step-class: cannot load " + name + ": " + CliErrors.describe(e));
        }
        if (!TrainingStep.class.isAssignableFrom(type)) {
            throw new ParameterException(spec.commandLine(), "--step-class: " + name + " does not implement dev.stoker.tune.TrainingStep" + expected);
        }
        Type batchType = batchType(type);
        if (batchType instanceof Class<?> c && !c.isAssignableFrom(TensorBatch.class)) {
            throw new ParameterException(spec.commandLine(), "--step-class: " + name + " is a TrainingStep<" + c.getSimpleName()
                    + ">, but the loader hands it TensorBatch" + expected);
        }
        if (Modifier.isAbstract(type.getModifiers())) {
            throw new ParameterException(spec.commandLine(), "--step-class: " + name + " is abstract" + expected);
        }
        try {
            return (TrainingStep<TensorBatch>) type.getConstructor().newInstance();
        } catch (NoSuchMethodException | IllegalAccessException e) {
            throw new ParameterException(spec.commandLine(), "--step-class: " + name + " has no public no-arg constructor" + expected);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("--step-class: " + name + "'s constructor failed: " + CliErrors.describe(e.getCause()), e.getCause());
        } catch (InstantiationException e) {
            throw new ParameterException(spec.commandLine(), "--step-class: cannot instantiate " + name + expected);
        }
    }

    /** The class's type argument to TrainingStep, when it names one directly (null otherwise). */
    private static Type batchType(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Type i : c.getGenericInterfaces()) {
                if (i instanceof ParameterizedType p && p.getRawType() == TrainingStep.class) {
                    return p.getActualTypeArguments()[0];
                }
            }
        }
        return null;
    }

    private ClassLoader classLoader(CommandSpec spec) {
        ClassLoader parent = StepOptions.class.getClassLoader();
        if (stepClasspath == null || stepClasspath.isBlank()) {
            return parent;
        }
        List<URL> urls = new ArrayList<>();
        for (String entry : stepClasspath.split(File.pathSeparator)) {
            if (entry.isBlank()) {
                continue;
            }
            Path p = Path.of(entry);
            if (!Files.exists(p)) {
                throw new ParameterException(spec.commandLine(), "--step-classpath: " + p + " does not exist (expected: jars or folders)");
            }
            try {
                urls.add(p.toUri().toURL());
            } catch (MalformedURLException e) {
                throw new ParameterException(spec.commandLine(), "--step-classpath: " + p + ": " + e.getMessage());
            }
        }
        return new URLClassLoader("step", urls.toArray(URL[]::new), parent);
    }
}
