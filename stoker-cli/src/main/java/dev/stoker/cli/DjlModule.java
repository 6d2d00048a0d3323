package dev.stoker.cli;

import dev.stoker.tune.ModelSpec;
import dev.stoker.tune.ModelStep;
import dev.stoker.tune.ModelSteps;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Stream;

/**
 * The {@code stoker-djl} module (DJL with libtorch, 112 MB), loaded only when a command trains a model: from
 * {@code stoker-djl/target/stoker-djl.jar} and {@code target/lib/*.jar} beside this CLI (or
 * {@code $STOKER_DJL_DIR}), in a class loader whose parent is the CLI's, so Stoker's own classes are shared
 * and the CLI's class path never carries the framework. Its {@link ModelSteps} service builds the models.
 *
 * <p>One class loader per JVM: a JNI library can be loaded by one class loader only, so a second loader
 * could not load libtorch again.
 */
final class DjlModule {
    static final String ENV = "STOKER_DJL_DIR";
    private static ClassLoader loader;

    private DjlModule() {
    }

    /** A model with fresh weights; the caller closes it. Fails with what to build when the module is missing. */
    static ModelStep open(ModelSpec spec) {
        List<String> names = new ArrayList<>();
        for (ModelSteps steps : ServiceLoader.load(ModelSteps.class, classLoader())) {
            if (steps.models().contains(spec.model())) {
                return steps.open(spec);
            }
            names.addAll(steps.models());
        }
        throw new IllegalArgumentException("--model: " + spec.model() + " (expected one of " + names + ")");
    }

    /** Where the module's jars are: $STOKER_DJL_DIR, else stoker-djl/target beside this CLI's module. */
    static Path directory() {
        String env = System.getenv(ENV);
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        try {
            // target/stoker-cli.jar or target/classes: three levels up is the project root either way.
            Path self = Path.of(DjlModule.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return self.getParent().getParent().getParent().resolve("stoker-djl").resolve("target");
        } catch (URISyntaxException e) {
            throw new IllegalStateException("cannot locate the stoker CLI's own jar: " + e.getMessage(), e);
        }
    }

    private static synchronized ClassLoader classLoader() {
        if (loader == null) {
            Path dir = directory();
            Path jar = dir.resolve("stoker-djl.jar");
            Path lib = dir.resolve("lib");
            if (!Files.isRegularFile(jar) || !Files.isDirectory(lib)) {
                throw new IllegalStateException("the DJL module is not built: " + jar + " or " + lib + " is missing"
                        + " (expected: 'mvn -pl stoker-djl -am package -DskipTests', which ./stoker runs for train and"
                        + " headspace --model; or set " + ENV + " to a folder holding stoker-djl.jar and lib/)");
            }
            List<URL> urls = new ArrayList<>();
            try (Stream<Path> jars = Files.list(lib)) {
                urls.add(jar.toUri().toURL());
                for (Path p : jars.filter(p -> p.toString().endsWith(".jar")).sorted().toList()) {
                    urls.add(p.toUri().toURL());
                }
            } catch (MalformedURLException e) {
                throw new IllegalStateException(e);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list " + lib, e);
            }
            loader = new URLClassLoader("stoker-djl", urls.toArray(URL[]::new), DjlModule.class.getClassLoader());
        }
        return loader;
    }
}
