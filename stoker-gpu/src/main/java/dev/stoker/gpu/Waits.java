package dev.stoker.gpu;

/**
 * A blocking wait inside a stage or iterator, which cannot throw {@link InterruptedException}: an interrupt
 * ends it with an {@link IllegalStateException} naming what was awaited, the thread's interrupt status kept.
 */
final class Waits {
    private Waits() {
    }

    /** A wait that an interrupt may end. */
    @FunctionalInterface
    interface Blocking<T> {
        T get() throws InterruptedException;
    }

    /** {@code wait}'s result; {@code what} names it for the message, e.g. {@code "a device clip buffer"}. */
    static <T> T await(String what, Blocking<T> wait) {
        try {
            return wait.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + what, e);
        }
    }
}
