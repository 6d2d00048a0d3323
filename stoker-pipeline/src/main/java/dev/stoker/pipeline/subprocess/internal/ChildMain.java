package dev.stoker.pipeline.subprocess.internal;

import dev.stoker.pipeline.subprocess.SubprocessOptions;

/**
 * The child JVM's entry point ({@link SubprocessOptions} starts {@code java ... dev.stoker.pipeline.subprocess.internal.ChildMain}):
 * it reads its launch line from standard input, rebuilds the stages it is to run and runs them between the two
 * shared-memory rings until the stream ends or the parent goes away. Public only because a JVM's main class
 * must be; the work is in {@code subprocess.internal}.
 */
public final class ChildMain {
    private ChildMain() { }

    public static void main(String[] args) throws Exception {
        ChildRun.main(System.in);
    }
}
