package dev.stoker.gpu;

/**
 * A CUDA driver call returned an error: which call, the {@code CUresult} code, its name and the driver's
 * description, e.g. {@code cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory}.
 */
final class CudaException extends RuntimeException {
    private final String function;
    private final int code;
    private final String errorName;

    public CudaException(String function, int code, String errorName, String errorString) {
        super(message(function, code, errorName, errorString));
        this.function = function;
        this.code = code;
        this.errorName = errorName;
    }

    /** Names the code from {@link CuResult}'s table (when the driver cannot be asked). */
    public static CudaException of(String function, int code) {
        return new CudaException(function, code, CuResult.name(code), CuResult.description(code));
    }

    static String message(String function, int code, String errorName, String errorString) {
        String text = errorString == null || errorString.isBlank() || errorString.equals(errorName) ? ""
                : ": " + errorString;
        return function + " failed: " + errorName + " (" + code + ")" + text;
    }

    /** The driver function that failed, e.g. {@code cuMemAlloc_v2}. */
    public String function() { return function; }

    /** The {@code CUresult}. */
    public int code() { return code; }

    /** The code's name, e.g. {@code CUDA_ERROR_OUT_OF_MEMORY}. */
    public String errorName() { return errorName; }
}
