package dev.stoker.loader;

import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * One stage of a loader's pipeline. Each loader's stages are a typed set of their own, an enum implementing this
 * ({@link VideoStage}; the shard loader's and the NVDEC loader's {@code Stage}), and {@link ClipLoader#stages()}
 * gives a running loader's: code that names a stage (a default config, a knob, a check of a config) names a constant,
 * never a string. The name is the one the pipeline, its stats, the options document and the command line use.
 */
public interface LoaderStage {

    /** The enum constant's name, as an implementation's {@code name()} gives it ({@code DECODE}). */
    String name();

    /** The pipeline's name for this stage, as its stats, the config and the command line spell it: the name in lower case. */
    default String stageName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The pipeline's names of {@code stages}, in their order. */
    static List<String> names(Collection<? extends LoaderStage> stages) {
        return stages.stream().map(LoaderStage::stageName).toList();
    }
}
