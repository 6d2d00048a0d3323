package dev.stoker.gpu;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The driver API's {@code CUresult} codes (from {@code cuda.h}, CUDA 13.0) with names and, for the common
 * ones, the driver's own description ({@link #TABLE}, data kept out of the code): what a {@link CudaException}
 * says when the driver cannot be asked ({@code cuGetErrorName} itself failing, or no driver at all in tests).
 */
final class CuResult {
    public static final int CUDA_SUCCESS = 0;
    public static final int CUDA_ERROR_OUT_OF_MEMORY = 2;
    public static final int CUDA_ERROR_NOT_INITIALIZED = 3;
    public static final int CUDA_ERROR_STUB_LIBRARY = 34;
    public static final int CUDA_ERROR_NO_DEVICE = 100;
    public static final int CUDA_ERROR_INVALID_DEVICE = 101;
    public static final int CUDA_ERROR_NOT_READY = 600;

    /** A row of {@link #TABLE}: the description is null where the table has none. */
    private record Entry(int code, String name, String description) { }

    /** The table, a resource beside this class: {@code code TAB name [TAB description]} a line, {@code #} comments. */
    static final String TABLE = "cu-results.tsv";

    private static final Map<Integer, Entry> BY_CODE = load();

    private CuResult() {
    }

    private static Map<Integer, Entry> load() {
        try (InputStream in = CuResult.class.getResourceAsStream(TABLE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + TABLE + " is missing from stoker-gpu");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(line -> !line.isBlank() && !line.startsWith("#"))
                    .map(line -> line.split("\t", 3))
                    .map(f -> new Entry(Integer.parseInt(f[0]), f[1], f.length > 2 ? f[2] : null))
                    .collect(Collectors.toUnmodifiableMap(Entry::code, e -> e));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code CUDA_ERROR_OUT_OF_MEMORY} for 2; {@code CUresult 12345} for a code this table does not know. */
    public static String name(int code) {
        Entry e = BY_CODE.get(code);
        return e == null ? "CUresult " + code : e.name();
    }

    /** The driver's description of the code where this table has it, else its name. */
    public static String description(int code) {
        Entry e = BY_CODE.get(code);
        return e == null ? "unrecognized error code " + code : e.description() != null ? e.description() : e.name();
    }
}
