package dev.stoker.gpu;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.EnumMap;
import java.util.Map;

/**
 * The CUDA driver API ({@code libcuda.so.1}, installed with the NVIDIA driver) through FFM: no CUDA
 * toolkit, no JNI. Each method is one driver call; every {@code CUresult} is checked and a failure
 * becomes a {@link CudaException} naming the call, the error's name and the driver's description.
 * Handles ({@code CUcontext}, {@code CUstream}, {@code CUevent}, {@code CUmodule}, {@code CUfunction})
 * and device pointers are plain {@code long}s.
 *
 * <p>Calls that need a context need it current on the calling thread ({@link HandleCall#CTX_SET_CURRENT}).
 */
final class CudaDriver {
    static final String LIBRARY = "libcuda.so.1";
    static final int CU_MEMHOSTALLOC_PORTABLE = 0x01;
    static final int CU_STREAM_NON_BLOCKING = 0x1;
    static final int CU_EVENT_DEFAULT = 0x0;
    static final int CU_EVENT_DISABLE_TIMING = 0x2;
    /** {@code CU_EVENT_INTERPROCESS}: the event may be shared with another process ({@code cuIpcGetEventHandle}). */
    static final int CU_EVENT_INTERPROCESS = 0x4;
    /** {@code CU_IPC_HANDLE_SIZE}: bytes of a {@code CUipcMemHandle} and of a {@code CUipcEventHandle}. */
    static final int IPC_HANDLE_BYTES = 64;

    /** size_t, CUdeviceptr (unsigned long long) and handles are 64-bit on Linux x86-64. */
    private static final MemoryLayout SIZE_T = JAVA_LONG;

    private final DriverLibrary library;
    private final MethodHandle cuInit;
    private final MethodHandle cuDriverGetVersion;
    private final MethodHandle cuDeviceGetCount;
    private final MethodHandle cuDeviceGet;
    private final MethodHandle cuDeviceGetName;
    private final MethodHandle cuDeviceTotalMem;
    private final MethodHandle cuDevicePrimaryCtxRetain;
    private final MethodHandle cuDevicePrimaryCtxRelease;
    private final MethodHandle cuDevicePrimaryCtxSetFlags;
    private final MethodHandle cuStreamCreate;
    private final MethodHandle cuEventCreate;
    private final MethodHandle cuEventRecord;
    private final MethodHandle cuEventQuery;
    private final MethodHandle cuEventElapsedTime;
    private final MethodHandle cuMemHostAlloc;
    private final MethodHandle cuMemAlloc;
    private final MethodHandle cuMemcpyHtoDAsync;
    private final MethodHandle cuMemcpyDtoDAsync;
    private final MethodHandle cuMemcpyHtoD;
    private final MethodHandle cuMemcpyDtoH;
    private final MethodHandle cuModuleLoadData;
    private final MethodHandle cuModuleGetFunction;
    private final MethodHandle cuLaunchKernel;
    private final MethodHandle cuIpcGetMemHandle;
    private final MethodHandle cuIpcOpenEventHandle;
    private final MethodHandle cuGetErrorName;
    private final MethodHandle cuGetErrorString;
    private final Map<HandleCall, MethodHandle> handleCalls = new EnumMap<>(HandleCall.class);

    /** The driver calls that take one handle or pointer and return nothing but their CUresult. */
    enum HandleCall {
        CTX_SET_CURRENT("cuCtxSetCurrent"),
        STREAM_SYNCHRONIZE("cuStreamSynchronize"),
        STREAM_DESTROY("cuStreamDestroy_v2"),
        EVENT_SYNCHRONIZE("cuEventSynchronize"),
        EVENT_DESTROY("cuEventDestroy_v2"),
        MEM_FREE_HOST("cuMemFreeHost"),
        MEM_FREE("cuMemFree_v2"),
        MODULE_UNLOAD("cuModuleUnload");

        final String symbol;

        HandleCall(String symbol) {
            this.symbol = symbol;
        }
    }

    private CudaDriver(DriverLibrary library) {
        this.library = library;
        cuInit = library.bind("cuInit", JAVA_INT);
        cuDriverGetVersion = library.bind("cuDriverGetVersion", ADDRESS);
        cuDeviceGetCount = library.bind("cuDeviceGetCount", ADDRESS);
        cuDeviceGet = library.bind("cuDeviceGet", ADDRESS, JAVA_INT);
        cuDeviceGetName = library.bind("cuDeviceGetName", ADDRESS, JAVA_INT, JAVA_INT);
        cuDeviceTotalMem = library.bind("cuDeviceTotalMem_v2", ADDRESS, JAVA_INT);
        cuDevicePrimaryCtxRetain = library.bind("cuDevicePrimaryCtxRetain", ADDRESS, JAVA_INT);
        cuDevicePrimaryCtxRelease = library.bind("cuDevicePrimaryCtxRelease_v2", JAVA_INT);
        cuDevicePrimaryCtxSetFlags = library.bind("cuDevicePrimaryCtxSetFlags_v2", JAVA_INT, JAVA_INT);
        cuStreamCreate = library.bind("cuStreamCreate", ADDRESS, JAVA_INT);
        cuEventCreate = library.bind("cuEventCreate", ADDRESS, JAVA_INT);
        cuEventRecord = library.bind("cuEventRecord", JAVA_LONG, JAVA_LONG);
        cuEventQuery = library.bind("cuEventQuery", JAVA_LONG);
        cuEventElapsedTime = library.bind("cuEventElapsedTime", ADDRESS, JAVA_LONG, JAVA_LONG);
        cuMemHostAlloc = library.bind("cuMemHostAlloc", ADDRESS, SIZE_T, JAVA_INT);
        cuMemAlloc = library.bind("cuMemAlloc_v2", ADDRESS, SIZE_T);
        cuMemcpyHtoDAsync = library.bind("cuMemcpyHtoDAsync_v2", JAVA_LONG, JAVA_LONG, SIZE_T, JAVA_LONG);
        cuMemcpyDtoDAsync = library.bind("cuMemcpyDtoDAsync_v2", JAVA_LONG, JAVA_LONG, SIZE_T, JAVA_LONG);
        cuMemcpyHtoD = library.bind("cuMemcpyHtoD_v2", JAVA_LONG, JAVA_LONG, SIZE_T);
        cuMemcpyDtoH = library.bind("cuMemcpyDtoH_v2", JAVA_LONG, JAVA_LONG, SIZE_T);
        cuModuleLoadData = library.bind("cuModuleLoadData", ADDRESS, ADDRESS);
        cuModuleGetFunction = library.bind("cuModuleGetFunction", ADDRESS, JAVA_LONG, ADDRESS);
        cuLaunchKernel = library.bind("cuLaunchKernel", JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
                JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS);
        cuIpcGetMemHandle = library.bind("cuIpcGetMemHandle", ADDRESS, JAVA_LONG);
        // CUipcEventHandle is passed by value: a struct of 64 bytes.
        cuIpcOpenEventHandle = library.bind("cuIpcOpenEventHandle", ADDRESS,
                MemoryLayout.structLayout(MemoryLayout.sequenceLayout(IPC_HANDLE_BYTES, ValueLayout.JAVA_BYTE)));
        cuGetErrorName = library.bind("cuGetErrorName", JAVA_INT, ADDRESS);
        cuGetErrorString = library.bind("cuGetErrorString", JAVA_INT, ADDRESS);
        for (HandleCall call : HandleCall.values()) {
            handleCalls.put(call, library.bind(call.symbol, JAVA_LONG));
        }
    }

    /**
     * Loads {@code library} (normally {@link #LIBRARY}) for the life of the JVM.
     *
     * @throws GpuUnavailableException if it is not there, or lacks an entry point this class binds
     */
    static CudaDriver load(String library) {
        SymbolLookup lookup;
        try {
            lookup = SymbolLookup.libraryLookup(library, Arena.global());
        } catch (IllegalArgumentException e) {
            throw new GpuUnavailableException(library + " not found: no NVIDIA driver on this machine", e);
        }
        return new CudaDriver(new DriverLibrary(LIBRARY, lookup, "a CUDA 11.0+ driver"));
    }

    // ---- error handling ------------------------------------------------------------------------------

    /** Throws a {@link CudaException} for a non-zero {@code result} of {@code function}. */
    void check(String function, int result) {
        if (result != CuResult.CUDA_SUCCESS) {
            throw exception(function, result);
        }
    }

    CudaException exception(String function, int result) {
        return new CudaException(function, result, errorName(result), errorString(result));
    }

    /** The driver's name for {@code result} ({@code cuGetErrorName}), else {@link CuResult}'s. */
    String errorName(int result) {
        String name = errorText(cuGetErrorName, result);
        return name != null ? name : CuResult.name(result);
    }

    /** The driver's description of {@code result} ({@code cuGetErrorString}), else {@link CuResult}'s. */
    String errorString(int result) {
        String text = errorText(cuGetErrorString, result);
        return text != null ? text : CuResult.description(result);
    }

    private static String errorText(MethodHandle function, int result) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int status = (int) function.invokeExact(result, out);
            MemorySegment text = out.get(ADDRESS, 0);
            if (status != 0 || text.equals(MemorySegment.NULL)) {
                return null;
            }
            return text.reinterpret(1024).getString(0);
        } catch (Throwable t) {
            return null;
        }
    }

    // ---- calls ---------------------------------------------------------------------------------------

    /** {@code call(handle)}: a {@link CudaException} naming the call if it fails. */
    void call(HandleCall call, long handle) {
        MethodHandle function = handleCalls.get(call);
        check(call.symbol, invoke(() -> (int) function.invokeExact(handle)));
    }

    /** {@code cuInit(0)}; returns the CUresult unchecked, for the caller to say what it means. */
    int init() {
        return invoke(() -> (int) cuInit.invokeExact(0));
    }

    int driverVersion() {
        return (int) out(JAVA_INT, "cuDriverGetVersion", out -> (int) cuDriverGetVersion.invokeExact(out));
    }

    int deviceCount() {
        return (int) out(JAVA_INT, "cuDeviceGetCount", out -> (int) cuDeviceGetCount.invokeExact(out));
    }

    int device(int ordinal) {
        return (int) out(JAVA_INT, "cuDeviceGet", out -> (int) cuDeviceGet.invokeExact(out, ordinal));
    }

    String deviceName(int device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(256);
            check("cuDeviceGetName", invoke(() -> (int) cuDeviceGetName.invokeExact(out, 256, device)));
            return out.getString(0);
        }
    }

    long deviceTotalMemBytes(int device) {
        return outLong("cuDeviceTotalMem_v2", out -> (int) cuDeviceTotalMem.invokeExact(out, device));
    }

    /** The flags the device's primary context is (or will be) created with; CUDA 11+ accepts them while active. */
    void primaryCtxSetFlags(int device, int flags) {
        check("cuDevicePrimaryCtxSetFlags_v2", invoke(() -> (int) cuDevicePrimaryCtxSetFlags.invokeExact(device, flags)));
    }

    long primaryCtxRetain(int device) {
        return outLong("cuDevicePrimaryCtxRetain", out -> (int) cuDevicePrimaryCtxRetain.invokeExact(out, device));
    }

    void primaryCtxRelease(int device) {
        check("cuDevicePrimaryCtxRelease_v2", invoke(() -> (int) cuDevicePrimaryCtxRelease.invokeExact(device)));
    }

    long streamCreate(int flags) {
        return outLong("cuStreamCreate", out -> (int) cuStreamCreate.invokeExact(out, flags));
    }

    long eventCreate(int flags) {
        return outLong("cuEventCreate", out -> (int) cuEventCreate.invokeExact(out, flags));
    }

    void eventRecord(long event, long stream) {
        check("cuEventRecord", invoke(() -> (int) cuEventRecord.invokeExact(event, stream)));
    }

    /** {@code cuEventQuery}: true when complete, false for CUDA_ERROR_NOT_READY; other results throw. */
    boolean eventQuery(long event) {
        int result = invoke(() -> (int) cuEventQuery.invokeExact(event));
        if (result == CuResult.CUDA_ERROR_NOT_READY) {
            return false;
        }
        check("cuEventQuery", result);
        return true;
    }

    float eventElapsedMillis(long start, long end) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_FLOAT);
            check("cuEventElapsedTime", invoke(() -> (int) cuEventElapsedTime.invokeExact(out, start, end)));
            return out.get(JAVA_FLOAT, 0);
        }
    }

    /** Page-locked host memory ({@code cuMemHostAlloc}); returns its address. */
    long memHostAlloc(long bytes, int flags) {
        return outLong("cuMemHostAlloc", out -> (int) cuMemHostAlloc.invokeExact(out, bytes, flags));
    }

    long memAlloc(long bytes) {
        return outLong("cuMemAlloc_v2", out -> (int) cuMemAlloc.invokeExact(out, bytes));
    }

    void memcpyHtoDAsync(long devicePointer, long hostAddress, long bytes, long stream) {
        check("cuMemcpyHtoDAsync_v2",
                invoke(() -> (int) cuMemcpyHtoDAsync.invokeExact(devicePointer, hostAddress, bytes, stream)));
    }

    void memcpyHtoD(long devicePointer, long hostAddress, long bytes) {
        check("cuMemcpyHtoD_v2", invoke(() -> (int) cuMemcpyHtoD.invokeExact(devicePointer, hostAddress, bytes)));
    }

    void memcpyDtoDAsync(long destination, long source, long bytes, long stream) {
        check("cuMemcpyDtoDAsync_v2", invoke(() -> (int) cuMemcpyDtoDAsync.invokeExact(destination, source, bytes, stream)));
    }

    void memcpyDtoH(long hostAddress, long devicePointer, long bytes) {
        check("cuMemcpyDtoH_v2", invoke(() -> (int) cuMemcpyDtoH.invokeExact(hostAddress, devicePointer, bytes)));
    }

    /** {@code cuIpcGetMemHandle}: the handle another process opens {@code devicePointer}'s allocation with. */
    byte[] ipcMemHandle(long devicePointer) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(IPC_HANDLE_BYTES, 8);
            check("cuIpcGetMemHandle", invoke(() -> (int) cuIpcGetMemHandle.invokeExact(out, devicePointer)));
            return out.toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /** {@code cuIpcOpenEventHandle}: another process's interprocess event, usable here (destroy it when done). */
    long ipcOpenEvent(byte[] handle) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(IPC_HANDLE_BYTES, 8);
            MemorySegment.copy(handle, 0, value, ValueLayout.JAVA_BYTE, 0, IPC_HANDLE_BYTES);
            return outLong("cuIpcOpenEventHandle", out -> (int) cuIpcOpenEventHandle.invokeExact(out, value));
        }
    }

    /** Loads a module from a NUL-terminated PTX image ({@code cuModuleLoadData}, JIT-compiled by the driver). */
    long moduleLoadData(MemorySegment image) {
        return outLong("cuModuleLoadData", out -> (int) cuModuleLoadData.invokeExact(out, image));
    }

    long moduleGetFunction(long module, String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cName = arena.allocateFrom(name);
            return outLong("cuModuleGetFunction", out -> (int) cuModuleGetFunction.invokeExact(out, module, cName));
        }
    }

    /** {@code cuLaunchKernel} with {@code params} an array of pointers to the argument values. */
    void launchKernel(long function, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
                      int sharedMemBytes, long stream, MemorySegment params) {
        check("cuLaunchKernel", invoke(() -> (int) cuLaunchKernel.invokeExact(function, gridX, gridY, gridZ,
                blockX, blockY, blockZ, sharedMemBytes, stream, params, MemorySegment.NULL)));
    }

    // ---- plumbing ------------------------------------------------------------------------------------

    private int invoke(DriverLibrary.Downcall call) {
        return library.invoke(call);
    }

    @FunctionalInterface
    private interface OutCall {
        int call(MemorySegment out) throws Throwable;
    }

    /** A call whose result is a 64-bit value (a handle, a pointer, a size) it writes to {@code out}. */
    private long outLong(String function, OutCall call) {
        return out(JAVA_LONG, function, call);
    }

    /** A call whose result is the value of {@code layout} (a 32- or 64-bit integer) it writes to {@code out}. */
    private long out(ValueLayout layout, String function, OutCall call) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            out.set(JAVA_LONG, 0, 0L);
            check(function, invoke(() -> call.call(out)));
            return layout == JAVA_INT ? out.get(JAVA_INT, 0) : out.get(JAVA_LONG, 0);
        }
    }
}
