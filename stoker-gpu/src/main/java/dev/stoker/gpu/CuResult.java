package dev.stoker.gpu;

import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The driver API's {@code CUresult} codes (from {@code cuda.h}, CUDA 13.0) with names and, for the common
 * ones, the driver's own description: what a {@link CudaException} says when the driver cannot be asked
 * ({@code cuGetErrorName} itself failing, or no driver at all in tests).
 */
public final class CuResult {
    public static final int CUDA_SUCCESS = 0;
    public static final int CUDA_ERROR_OUT_OF_MEMORY = 2;
    public static final int CUDA_ERROR_NOT_INITIALIZED = 3;
    public static final int CUDA_ERROR_STUB_LIBRARY = 34;
    public static final int CUDA_ERROR_NO_DEVICE = 100;
    public static final int CUDA_ERROR_INVALID_DEVICE = 101;
    public static final int CUDA_ERROR_NOT_READY = 600;

    private record Entry(int code, String name, String description) { }

    private static final Map<Integer, Entry> BY_CODE = Stream.of(
            entry(0, "CUDA_SUCCESS", "no error"),
            entry(1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"),
            entry(2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"),
            entry(3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"),
            entry(4, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"),
            entry(5, "CUDA_ERROR_PROFILER_DISABLED"),
            entry(6, "CUDA_ERROR_PROFILER_NOT_INITIALIZED"),
            entry(7, "CUDA_ERROR_PROFILER_ALREADY_STARTED"),
            entry(8, "CUDA_ERROR_PROFILER_ALREADY_STOPPED"),
            entry(34, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"),
            entry(36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER", "CUDA driver is too old for this call"),
            entry(46, "CUDA_ERROR_DEVICE_UNAVAILABLE", "CUDA-capable device(s) is/are busy or unavailable"),
            entry(100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"),
            entry(101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"),
            entry(102, "CUDA_ERROR_DEVICE_NOT_LICENSED"),
            entry(200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"),
            entry(201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"),
            entry(202, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT"),
            entry(205, "CUDA_ERROR_MAP_FAILED"),
            entry(206, "CUDA_ERROR_UNMAP_FAILED"),
            entry(207, "CUDA_ERROR_ARRAY_IS_MAPPED"),
            entry(208, "CUDA_ERROR_ALREADY_MAPPED"),
            entry(209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"),
            entry(210, "CUDA_ERROR_ALREADY_ACQUIRED"),
            entry(211, "CUDA_ERROR_NOT_MAPPED"),
            entry(212, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY"),
            entry(213, "CUDA_ERROR_NOT_MAPPED_AS_POINTER"),
            entry(214, "CUDA_ERROR_ECC_UNCORRECTABLE"),
            entry(215, "CUDA_ERROR_UNSUPPORTED_LIMIT"),
            entry(216, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE"),
            entry(217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED"),
            entry(218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"),
            entry(219, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT"),
            entry(220, "CUDA_ERROR_NVLINK_UNCORRECTABLE"),
            entry(221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", "PTX JIT compiler library not found"),
            entry(222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the provided PTX was compiled with an unsupported toolchain"),
            entry(223, "CUDA_ERROR_JIT_COMPILATION_DISABLED"),
            entry(224, "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY"),
            entry(225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC"),
            entry(226, "CUDA_ERROR_CONTAINED"),
            entry(300, "CUDA_ERROR_INVALID_SOURCE"),
            entry(301, "CUDA_ERROR_FILE_NOT_FOUND"),
            entry(302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND"),
            entry(303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED"),
            entry(304, "CUDA_ERROR_OPERATING_SYSTEM"),
            entry(400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"),
            entry(401, "CUDA_ERROR_ILLEGAL_STATE"),
            entry(402, "CUDA_ERROR_LOSSY_QUERY"),
            entry(500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"),
            entry(600, "CUDA_ERROR_NOT_READY", "device not ready"),
            entry(700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"),
            entry(701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"),
            entry(702, "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"),
            entry(703, "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING"),
            entry(704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED"),
            entry(705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED"),
            entry(708, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE"),
            entry(709, "CUDA_ERROR_CONTEXT_IS_DESTROYED"),
            entry(710, "CUDA_ERROR_ASSERT"),
            entry(711, "CUDA_ERROR_TOO_MANY_PEERS"),
            entry(712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"),
            entry(713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"),
            entry(714, "CUDA_ERROR_HARDWARE_STACK_ERROR"),
            entry(715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"),
            entry(716, "CUDA_ERROR_MISALIGNED_ADDRESS"),
            entry(717, "CUDA_ERROR_INVALID_ADDRESS_SPACE"),
            entry(718, "CUDA_ERROR_INVALID_PC"),
            entry(719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"),
            entry(720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"),
            entry(721, "CUDA_ERROR_TENSOR_MEMORY_LEAK"),
            entry(800, "CUDA_ERROR_NOT_PERMITTED", "operation not permitted"),
            entry(801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"),
            entry(802, "CUDA_ERROR_SYSTEM_NOT_READY"),
            entry(803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "system has unsupported display driver / cuda driver combination"),
            entry(804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"),
            entry(805, "CUDA_ERROR_MPS_CONNECTION_FAILED"),
            entry(806, "CUDA_ERROR_MPS_RPC_FAILURE"),
            entry(807, "CUDA_ERROR_MPS_SERVER_NOT_READY"),
            entry(808, "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED"),
            entry(809, "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED"),
            entry(810, "CUDA_ERROR_MPS_CLIENT_TERMINATED"),
            entry(811, "CUDA_ERROR_CDP_NOT_SUPPORTED"),
            entry(812, "CUDA_ERROR_CDP_VERSION_MISMATCH"),
            entry(900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"),
            entry(901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"),
            entry(902, "CUDA_ERROR_STREAM_CAPTURE_MERGE"),
            entry(903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED"),
            entry(904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED"),
            entry(905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION"),
            entry(906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT"),
            entry(907, "CUDA_ERROR_CAPTURED_EVENT"),
            entry(908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD"),
            entry(909, "CUDA_ERROR_TIMEOUT"),
            entry(910, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE"),
            entry(911, "CUDA_ERROR_EXTERNAL_DEVICE"),
            entry(912, "CUDA_ERROR_INVALID_CLUSTER_SIZE"),
            entry(913, "CUDA_ERROR_FUNCTION_NOT_LOADED"),
            entry(914, "CUDA_ERROR_INVALID_RESOURCE_TYPE"),
            entry(915, "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION"),
            entry(916, "CUDA_ERROR_KEY_ROTATION"),
            entry(999, "CUDA_ERROR_UNKNOWN", "unknown error"))
            .collect(Collectors.toUnmodifiableMap(Entry::code, e -> e));

    private CuResult() {
    }

    private static Entry entry(int code, String name) {
        return new Entry(code, name, null);
    }

    private static Entry entry(int code, String name, String description) {
        return new Entry(code, name, description);
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
