package dev.stoker.pipeline.subprocess;

import dev.stoker.pipeline.StageFactory;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** Stage factories the tests run in child JVMs (public, with public no-arg constructors, as the child needs). */
public final class TestStages {
    private TestStages() { }

    /** Upper-cases strings; the config is a suffix to append. */
    public static final class Upper implements StageFactory<String, String> {
        @Override
        public Function<String, String> create(String config) {
            return s -> s.toUpperCase() + config;
        }
    }

    /** "x" into "x-0", "x-1", … "x-(n-1)"; n is the config. */
    public static final class Split implements StageFactory<String, List<String>> {
        @Override
        public Function<String, List<String>> create(String config) {
            int n = Integer.parseInt(config);
            return s -> {
                List<String> out = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    out.add(s + "-" + i);
                }
                return out;
            };
        }
    }

    /** Keeps strings that do not contain the config. */
    public static final class Without implements StageFactory<String, Boolean> {
        @Override
        public Function<String, Boolean> create(String config) {
            return s -> !s.contains(config);
        }
    }

    /** Throws on items equal to the config (a stage failure, not a crash). */
    public static final class FailOn implements StageFactory<String, String> {
        @Override
        public Function<String, String> create(String config) {
            return s -> {
                if (s.equals(config)) {
                    throw new IllegalArgumentException("bad item " + s);
                }
                return s;
            };
        }
    }

    /** Passes any item through; sleeps the config's milliseconds first. */
    public static final class Identity implements StageFactory<Object, Object> {
        @Override
        public Function<Object, Object> create(String config) {
            long sleep = config.isEmpty() ? 0 : Long.parseLong(config);
            return v -> {
                if (sleep > 0) {
                    try {
                        Thread.sleep(sleep);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(e);
                    }
                }
                return v;
            };
        }
    }

    /** Passes strings through after sleeping the config's milliseconds. */
    public static final class Slow implements StageFactory<String, String> {
        @Override
        public Function<String, String> create(String config) {
            Function<Object, Object> sleep = new Identity().create(config);
            return s -> (String) sleep.apply(s);
        }
    }

    /** A batch of strings into one string, joined with the config (a stand-in for collate). */
    public static final class Join implements StageFactory<List<String>, String> {
        @Override
        public Function<List<String>, String> create(String config) {
            return batch -> String.join(config, batch);
        }
    }

    /** A list of paths into the list of their file names. */
    public static final class FileNames implements StageFactory<List<Path>, List<String>> {
        @Override
        public Function<List<Path>, List<String>> create(String config) {
            return paths -> paths.stream().map(p -> p.getFileName().toString()).toList();
        }
    }

    /** Crashes the JVM natively (strlen on address 1: SIGSEGV in libc) on the item equal to the config. */
    public static final class SegfaultOn implements StageFactory<String, String> {
        @Override
        public Function<String, String> create(String config) {
            Linker linker = Linker.nativeLinker();
            MethodHandle strlen = linker.downcallHandle(linker.defaultLookup().find("strlen").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
            return s -> {
                if (s.equals(config)) {
                    try {
                        long ignored = (long) strlen.invokeExact(MemorySegment.ofAddress(1));
                        throw new AssertionError("survived a segfault: " + ignored);
                    } catch (Throwable t) {
                        throw new AssertionError(t);
                    }
                }
                return s;
            };
        }
    }
}
