package dev.stoker.loader.batch;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How hard the pool looks for batches dropped without {@code close()}, from the system property
 * {@value #PROPERTY}: {@code disabled}, {@code simple} (default) or {@code paranoid}.
 */
enum LeakDetection {
    /** No tracking: a dropped batch's buffer is lost to the pool until the pool closes. */
    DISABLED,
    /**
     * Every batch is tracked, which is cheap next to megabytes of pixels, so every leaked buffer comes
     * back; the acquiring stack, which is not cheap, is kept for one acquisition in {@value #SAMPLE_INTERVAL}.
     */
    SIMPLE,
    /**
     * Every batch is tracked and keeps its acquiring stack and the stack where it was last handed to its consumer
     * ({@link BatchPool#handOut}): the report names the code that leaked it.
     */
    PARANOID;

    static final String PROPERTY = "stoker.leakDetection";
    static final int SAMPLE_INTERVAL = 128;
    private static final String LOADER_PACKAGE = "dev.stoker.loader.";

    static LeakDetection fromSystemProperty() {
        String value = System.getProperty(PROPERTY, "simple").strip().toUpperCase(Locale.ROOT);
        try {
            return valueOf(value);
        } catch (IllegalArgumentException e) {
            System.getLogger(LeakDetection.class.getName()).log(System.Logger.Level.WARNING,
                    "-D" + PROPERTY + "=" + value.toLowerCase(Locale.ROOT)
                            + " (expected: disabled, simple or paranoid); using simple");
            return SIMPLE;
        }
    }

    boolean tracks() {
        return this != DISABLED;
    }

    /** The acquisition point to report if this batch leaks, or null when not recorded. */
    Throwable acquisitionTrace() {
        return switch (this) {
            case DISABLED -> null;
            case SIMPLE -> ThreadLocalRandom.current().nextInt(SAMPLE_INTERVAL) == 0 ? new AcquiredAt() : null;
            case PARANOID -> new AcquiredAt();
        };
    }

    /**
     * Where a batch goes to its consumer, to report if it leaks, or null when not recorded: always when paranoid;
     * when simple, for the batches whose acquisition was sampled ({@code acquisitionTraced}), so that a sampled
     * report has both stacks.
     */
    Throwable handOutTrace(boolean acquisitionTraced) {
        return this == PARANOID || this == SIMPLE && acquisitionTraced ? new HandedOutAt() : null;
    }

    /** Carries the stack of the acquire() call; never thrown. */
    static final class AcquiredAt extends Throwable {
        AcquiredAt() {
            super("ClipBatch acquired here", null, false, true);
            // Start the trace at the caller of acquire(): the pool's own frames say nothing.
            setStackTrace(withoutTop(getStackTrace(), false));
        }
    }

    /** Carries the stack of the call that handed the batch to its consumer (the loader's next()); never thrown. */
    static final class HandedOutAt extends Throwable {
        HandedOutAt() {
            super("ClipBatch last handed out here", null, false, true);
            // Start the trace at the consumer's call of next(): the pool's frames and the loader's iterators, which
            // are the same for every batch, say nothing about who dropped it.
            setStackTrace(withoutTop(getStackTrace(), true));
        }
    }

    private static StackTraceElement[] withoutTop(StackTraceElement[] frames, boolean loaderFront) {
        int first = 0;
        while (first < frames.length - 1 && (isPoolFrame(frames[first]) || loaderFront && isLoaderFrame(frames[first]))) {
            first++;
        }
        return Arrays.copyOfRange(frames, first, frames.length);
    }

    private static boolean isPoolFrame(StackTraceElement frame) {
        String name = frame.getClassName();
        return name.startsWith(BatchPool.class.getName()) || name.startsWith(BatchLease.class.getName())
                || name.startsWith(LeakDetection.class.getName());
    }

    /** A frame of the loaders' front (HostBatchLoader and its iterators), in {@code dev.stoker.loader} itself. */
    private static boolean isLoaderFrame(StackTraceElement frame) {
        String name = frame.getClassName();
        return name.startsWith(LOADER_PACKAGE) && name.indexOf('.', LOADER_PACKAGE.length()) < 0;
    }
}
