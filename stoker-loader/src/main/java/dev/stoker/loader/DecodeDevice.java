package dev.stoker.loader;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Where clips are decoded ({@link LoaderOptions.Decode#device()}): on the CPU (the default), on the GPU's NVDEC
 * engines, on both at once ({@code hybrid}: NVDEC sessions and CPU workers take videos from one queue, each pool at its
 * own rate), or {@code auto}: whichever of those the machine has (stoker-gpu's loaders resolve it). The GPU modes run
 * in stoker-gpu ({@code NvdecLoader}); the CPU loader decodes on the CPU whatever this says.
 */
public enum DecodeDevice {
    CPU, NVDEC, HYBRID, AUTO;

    /** The names, as the CLI and the options' JSON spell them. */
    public static final List<String> NAMES = Arrays.stream(values()).map(DecodeDevice::toString).toList();

    /** {@code "hybrid"}. */
    @JsonValue
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The mode called {@code name}, any case. */
    @JsonCreator
    public static DecodeDevice of(String name) {
        for (DecodeDevice d : values()) {
            if (d.name().equalsIgnoreCase(name)) {
                return d;
            }
        }
        throw new IllegalArgumentException("decode: \"" + name + "\" (expected: one of " + String.join(", ", NAMES) + ")");
    }

    /** Whether clips may be decoded on a GPU (then the loader is stoker-gpu's). */
    public boolean onGpu() {
        return this != CPU;
    }
}
