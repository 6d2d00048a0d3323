package dev.stoker.gpu;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * A library the NVIDIA driver installs ({@code libcuda}, {@code libnvcuvid}), whose functions all return a
 * {@code CUresult}: {@link CudaDriver} and {@link NvcuvidLibrary} bind them alike, and a function the library lacks
 * means a driver older than the one Stoker needs.
 *
 * @param name        the library's file name, as messages say it
 * @param symbols     the loaded library
 * @param requirement the driver it takes, as a missing function's message says it (after "expected: ")
 */
record DriverLibrary(String name, SymbolLookup symbols, String requirement) {
    private static final Linker LINKER = Linker.nativeLinker();

    /**
     * A downcall to {@code function}, which takes {@code arguments} and returns a {@code CUresult}.
     *
     * @throws GpuUnavailableException if the library has no such function
     */
    MethodHandle bind(String function, MemoryLayout... arguments) {
        Optional<MemorySegment> symbol = symbols.find(function);
        if (symbol.isEmpty()) {
            throw new GpuUnavailableException(name + " has no " + function + ": the NVIDIA driver is too old"
                    + " (expected: " + requirement + ")");
        }
        return LINKER.downcallHandle(symbol.get(), FunctionDescriptor.of(JAVA_INT, arguments));
    }

    /** A downcall returning its {@code CUresult}: {@code invokeExact} declares Throwable, {@link #invoke} narrows it. */
    @FunctionalInterface
    interface Downcall {
        int call() throws Throwable;
    }

    /**
     * Runs {@code call} and returns its {@code CUresult}; what the downcall itself throws goes on as it is when
     * unchecked, else (a checked exception, which a downcall does not throw) as an {@link IllegalStateException}.
     */
    int invoke(Downcall call) {
        try {
            return call.call();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(name + " downcall failed", t);
        }
    }
}
