package dev.stoker.gpu;

import dev.stoker.loader.DeviceSpec;

/**
 * The door to CUDA devices: whether the GPU path can run here ({@link #available()}), and the devices
 * themselves ({@link #open}). The driver ({@code libcuda.so.1}) is loaded and initialised once, on first
 * use; what is missing is said once, in the {@link GpuUnavailableException} every later call gets too.
 */
public final class Cuda {
    private static final Object LOCK = new Object();
    private static CudaDriver driver;
    private static GpuUnavailableException unavailable;

    private Cuda() {
    }

    /** Whether the driver loads, initialises and reports at least one device. Never throws. */
    public static boolean available() {
        return unavailableReason() == null;
    }

    /** Why {@link #available()} is false, in one line; null when it is true. */
    public static String unavailableReason() {
        try {
            requireDevice(0, deviceCount());
            return null;
        } catch (GpuUnavailableException | CudaException e) {
            return e.getMessage();
        }
    }

    /**
     * CUDA devices the driver sees.
     *
     * @throws GpuUnavailableException if there is no driver, or it fails to initialise
     */
    public static int deviceCount() {
        return driver().deviceCount();
    }

    /**
     * Opens {@code spec}'s device (its primary context, shared with any CUDA runtime in the process,
     * e.g. PyTorch's).
     *
     * @throws GpuUnavailableException naming what is missing: the driver, any device, or that device
     * @throws IllegalArgumentException if {@code spec} is not a CUDA device
     */
    public static CudaDevice open(DeviceSpec spec) {
        if (!spec.isCuda()) {
            throw new IllegalArgumentException("device: " + spec + " (expected: cuda or cuda:N)");
        }
        CudaDriver d = driver();
        requireDevice(spec.index(), d.deviceCount());
        return CudaDevice.open(d, spec.index());
    }

    /** Throws the message a user sees when device {@code index} is asked for and {@code count} exist. */
    static void requireDevice(int index, int count) {
        if (count == 0) {
            throw new GpuUnavailableException("no CUDA device (cuDeviceGetCount = 0)");
        }
        if (index >= count) {
            throw new GpuUnavailableException("device cuda:" + index + " requested but " + count + " device"
                    + (count == 1 ? "" : "s") + " present");
        }
    }

    /** The loaded, initialised driver. */
    static CudaDriver driver() {
        synchronized (LOCK) {
            if (driver != null) {
                return driver;
            }
            if (unavailable == null) {
                try {
                    driver = load(CudaDriver.LIBRARY);
                    return driver;
                } catch (GpuUnavailableException e) {
                    unavailable = e;
                }
            }
            // A fresh exception per call (its stack is the caller's), with the same message.
            throw new GpuUnavailableException(unavailable.getMessage(), unavailable.getCause());
        }
    }

    /** Loads and initialises {@code library} (a parameter so tests can name one that is missing). */
    static CudaDriver load(String library) {
        CudaDriver d = CudaDriver.load(library);
        int result = d.init();
        if (result != CuResult.CUDA_SUCCESS) {
            throw initFailure(d.exception("cuInit", result));
        }
        return d;
    }

    /** What a failed {@code cuInit} means for the user. */
    static GpuUnavailableException initFailure(CudaException e) {
        String message = switch (e.code()) {
            case CuResult.CUDA_ERROR_NO_DEVICE -> "no CUDA device (" + e.getMessage() + ")";
            case CuResult.CUDA_ERROR_STUB_LIBRARY -> CudaDriver.LIBRARY
                    + " is the CUDA toolkit's stub library, not an NVIDIA driver (" + e.getMessage() + ")";
            default -> "the NVIDIA driver failed to initialise (" + e.getMessage() + ")";
        };
        return new GpuUnavailableException(message, e);
    }
}
