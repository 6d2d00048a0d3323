package dev.stoker.store.prefetch.internal;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The kernel's page cache for one file, through libc (FFM): {@link #evict} drops a file's cached pages
 * so that the next read comes from the device (cold-cache benchmarks, {@code --cold}); {@link #residency}
 * counts the cached ones (what {@code fincore} prints). Linux only.
 *
 * <p>Eviction is advice: dirty pages (written, not yet flushed) and pages mapped by a process stay, and
 * file systems that live in memory (tmpfs) keep everything.
 */
public final class PageCache {
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000;
    /** {@code POSIX_FADV_DONTNEED} on Linux (all mainstream architectures). */
    static final int POSIX_FADV_DONTNEED = 4;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final MemoryLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle OPEN = LINKER.downcallHandle(LIBC.find("open").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
            Linker.Option.firstVariadicArg(2), Linker.Option.captureCallState("errno"));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(LIBC.find("close").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle FADVISE = LINKER.downcallHandle(LIBC.find("posix_fadvise").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    private static final MethodHandle MINCORE = LINKER.downcallHandle(LIBC.find("mincore").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS),
            Linker.Option.captureCallState("errno"));
    private static final MethodHandle GETPAGESIZE = LINKER.downcallHandle(LIBC.find("getpagesize").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT));
    private static final MethodHandle STRERROR = LINKER.downcallHandle(LIBC.find("strerror").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    private static final int ENOENT = 2;

    private PageCache() {
    }

    /** How much of a file is in the page cache. */
    public record Residency(long pages, long residentPages, int pageBytes) {
        public double residentFraction() {
            return pages == 0 ? 0 : (double) residentPages / pages;
        }
    }

    /**
     * Asks the kernel to drop {@code file}'s cached pages: {@code posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)}.
     *
     * @throws NoSuchFileException if the file does not exist
     * @throws IOException if it cannot be opened or the advice is refused, with the system's reason
     */
    public static void evict(Path file) throws IOException {
        evict(file, 0, 0);
    }

    /**
     * Asks the kernel to drop the cached pages of {@code lengthBytes} bytes of {@code file} from
     * {@code offsetBytes} on ({@code lengthBytes} 0: to the end). Pages this process has mapped stay: unmap
     * them first ({@link java.lang.foreign.MemorySegment#unload()} on the mapped slice).
     *
     * @throws NoSuchFileException if the file does not exist
     * @throws IOException if it cannot be opened or the advice is refused, with the system's reason
     */
    public static void evict(Path file, long offsetBytes, long lengthBytes) throws IOException {
        if (offsetBytes < 0 || lengthBytes < 0) {
            throw new IllegalArgumentException("range: " + offsetBytes + "+" + lengthBytes + " (expected: 0+ both)");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int fd = (int) OPEN.invokeExact(state, arena.allocateFrom(file.toString()), O_RDONLY | O_CLOEXEC, 0);
            if (fd < 0) {
                int errno = (int) ERRNO.get(state, 0L);
                String reason = file + ": cannot open to evict its pages: " + strerror(errno);
                throw errno == ENOENT ? new NoSuchFileException(file.toString(), null, reason) : new IOException(reason);
            }
            try {
                int error = (int) FADVISE.invokeExact(fd, offsetBytes, lengthBytes, POSIX_FADV_DONTNEED);
                if (error != 0) {
                    throw new IOException(file + ": posix_fadvise(DONTNEED) failed: " + strerror(error));
                }
            } finally {
                int ignored = (int) CLOSE.invokeExact(fd);
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("native call failed", t);
        }
    }

    /** Pages of {@code file} in the page cache now ({@code mincore} over a read-only mapping; touches no page). */
    public static Residency residency(Path file) throws IOException {
        int pageBytes = pageBytes();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ); Arena arena = Arena.ofConfined()) {
            long size = channel.size();
            if (size == 0) {
                return new Residency(0, 0, pageBytes);
            }
            MemorySegment mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            long pages = (size + pageBytes - 1) / pageBytes;
            MemorySegment vector = arena.allocate(pages);
            MemorySegment state = arena.allocate(CALL_STATE);
            int rc = (int) MINCORE.invokeExact(state, mapped, size, vector);
            if (rc != 0) {
                throw new IOException(file + ": mincore failed: " + strerror((int) ERRNO.get(state, 0L)));
            }
            long resident = 0;
            for (long i = 0; i < pages; i++) {
                resident += vector.get(ValueLayout.JAVA_BYTE, i) & 1;
            }
            return new Residency(pages, resident, pageBytes);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("native call failed", t);
        }
    }

    private static int pageBytes() {
        try {
            return (int) GETPAGESIZE.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("getpagesize failed", t);
        }
    }

    private static String strerror(int errno) {
        try {
            MemorySegment message = (MemorySegment) STRERROR.invokeExact(errno);
            return message.reinterpret(256).getString(0) + " (errno " + errno + ")";
        } catch (Throwable t) {
            return "errno " + errno;
        }
    }
}
