package dev.stoker.gpu;

/**
 * The GPU path cannot run on this machine, and the message says what is missing: the NVIDIA driver
 * ({@code libcuda.so.1 not found: no NVIDIA driver on this machine}), a device
 * ({@code no CUDA device (cuDeviceGetCount = 0)}), the requested device
 * ({@code device cuda:3 requested but 1 device present}), or a driver entry point.
 */
public final class GpuUnavailableException extends RuntimeException {
    public GpuUnavailableException(String message) {
        super(message);
    }

    public GpuUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
