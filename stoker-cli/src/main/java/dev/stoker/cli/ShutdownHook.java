package dev.stoker.cli;

/**
 * A JVM shutdown hook a command holds while it runs (Ctrl-C: say what is kept, stop children, finish a report), and
 * removes when it is done: {@code try (ShutdownHook hook = ShutdownHook.add(...)) { ... }}.
 */
final class ShutdownHook implements AutoCloseable {
    private final Thread thread;

    private ShutdownHook(Thread thread) {
        this.thread = thread;
    }

    /**
     * Runs {@code onStop} on a thread named {@code name} when the JVM stops, until closed.
     *
     * @throws IllegalStateException if the JVM is stopping already (no hook is taken then)
     */
    static ShutdownHook add(String name, Runnable onStop) {
        Thread thread = Thread.ofPlatform().name(name).unstarted(onStop);
        Runtime.getRuntime().addShutdownHook(thread);
        return new ShutdownHook(thread);
    }

    /** Removes the hook; when the JVM is stopping, it is running or has run, and nothing is left to remove. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(thread);
        } catch (IllegalStateException stopping) {
            // the hook runs: the JVM is stopping
        }
    }
}
