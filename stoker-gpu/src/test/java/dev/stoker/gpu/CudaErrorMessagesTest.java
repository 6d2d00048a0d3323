package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DeviceSpec;
import dev.stoker.loader.Opening;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;


/** What a user reads when the GPU path cannot run, and how a CUresult becomes a message. */
class CudaErrorMessagesTest {

    private static boolean driverPresent() {
        try {
            SymbolLookup.libraryLookup(CudaDriver.LIBRARY, Arena.global());
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** libc stands in for a driver library: its {@code abs} returns an int, as a driver function its CUresult. */
    @Test
    void aFunctionTheDriverLacksNamesTheLibraryAndTheDriverItTakes() {
        DriverLibrary libc = new DriverLibrary("libc", Linker.nativeLinker().defaultLookup(), "a driver of 2030");
        MethodHandle abs = libc.bind("abs", ValueLayout.JAVA_INT);
        assertThat(libc.invoke(() -> (int) abs.invokeExact(-5))).isEqualTo(5);
        assertThatThrownBy(() -> libc.bind("cuNoSuchFunction", ValueLayout.JAVA_INT))
                .isInstanceOf(GpuUnavailableException.class)
                .hasMessage("libc has no cuNoSuchFunction: the NVIDIA driver is too old (expected: a driver of 2030)");
    }

    @Test
    void withoutTheDriverEveryDoorSaysTheLibraryIsMissing() {
        Assumptions.assumeFalse(driverPresent(), "libcuda.so.1 is present: this test is for machines without a driver");
        String expected = "libcuda.so.1 not found: no NVIDIA driver on this machine";
        assertThat(Cuda.available()).isFalse();
        assertThat(Cuda.unavailableReason()).isEqualTo(expected);
        assertThatThrownBy(() -> Cuda.open(DeviceSpec.cuda(0)))
                .isInstanceOf(GpuUnavailableException.class).hasMessage(expected);
        assertThatThrownBy(Cuda::deviceCount).isInstanceOf(GpuUnavailableException.class).hasMessage(expected);
        // The loader opens the device before anything else: no dataset needed to learn there is no GPU.
        assertThatThrownBy(() -> GpuLoader.open(null, null, DeviceSpec.cuda(0), Opening.defaults()))
                .isInstanceOf(GpuUnavailableException.class).hasMessage(expected);
    }

    @Test
    void aMissingLibraryIsNamed() {
        assertThatThrownBy(() -> Cuda.load("libcuda-stoker-absent.so.1"))
                .isInstanceOf(GpuUnavailableException.class)
                .hasMessage("libcuda-stoker-absent.so.1 not found: no NVIDIA driver on this machine");
    }

    @Test
    void deviceCountAndIndexProblemsAreNamed() {
        assertThatThrownBy(() -> Cuda.requireDevice(0, 0)).isInstanceOf(GpuUnavailableException.class)
                .hasMessage("no CUDA device (cuDeviceGetCount = 0)");
        assertThatThrownBy(() -> Cuda.requireDevice(3, 1)).hasMessage("device cuda:3 requested but 1 device present");
        assertThatThrownBy(() -> Cuda.requireDevice(2, 2)).hasMessage("device cuda:2 requested but 2 devices present");
        Cuda.requireDevice(1, 2);
    }

    @Test
    void aFailedCuInitSaysWhatItMeans() {
        assertThat(Cuda.initFailure(CudaException.of("cuInit", 100)))
                .hasMessage("no CUDA device (cuInit failed: CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected)");
        assertThat(Cuda.initFailure(CudaException.of("cuInit", 34)))
                .hasMessage("libcuda.so.1 is the CUDA toolkit's stub library, not an NVIDIA driver"
                        + " (cuInit failed: CUDA_ERROR_STUB_LIBRARY (34): CUDA driver is a stub library)");
        assertThat(Cuda.initFailure(CudaException.of("cuInit", 803))).hasMessage("the NVIDIA driver failed to initialise"
                + " (cuInit failed: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803):"
                + " system has unsupported display driver / cuda driver combination)");
    }

    @Test
    void cuResultCodesMapToTheirNamesAndDescriptions() {
        assertThat(CuResult.name(0)).isEqualTo("CUDA_SUCCESS");
        assertThat(CuResult.name(2)).isEqualTo("CUDA_ERROR_OUT_OF_MEMORY");
        assertThat(CuResult.description(2)).isEqualTo("out of memory");
        assertThat(CuResult.name(600)).isEqualTo("CUDA_ERROR_NOT_READY");
        assertThat(CuResult.name(700)).isEqualTo("CUDA_ERROR_ILLEGAL_ADDRESS");
        assertThat(CuResult.name(999)).isEqualTo("CUDA_ERROR_UNKNOWN");
        assertThat(CuResult.name(916)).isEqualTo("CUDA_ERROR_KEY_ROTATION");
        assertThat(CuResult.description(916)).as("no description: the name").isEqualTo("CUDA_ERROR_KEY_ROTATION");
        assertThat(CuResult.name(12345)).isEqualTo("CUresult 12345");
        assertThat(CuResult.description(12345)).isEqualTo("unrecognized error code 12345");
    }

    @Test
    void aCudaExceptionNamesTheCallTheErrorAndTheDriversText() {
        CudaException e = CudaException.of("cuMemAlloc_v2", 2);
        assertThat(e).hasMessage("cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory");
        assertThat(e.function()).isEqualTo("cuMemAlloc_v2");
        assertThat(e.code()).isEqualTo(2);
        assertThat(e.errorName()).isEqualTo("CUDA_ERROR_OUT_OF_MEMORY");
        assertThat(new CudaException("cuEventQuery", 400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"))
                .hasMessage("cuEventQuery failed: CUDA_ERROR_INVALID_HANDLE (400): invalid resource handle");
        assertThat(new CudaException("cuCtxSetCurrent", 4242, "CUresult 4242", null))
                .hasMessage("cuCtxSetCurrent failed: CUresult 4242 (4242)");
    }
}
