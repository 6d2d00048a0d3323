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
    /** Every batch is tracked and keeps its acquiring stack: the report names the code that leaked it. */
    PARANOID;

    static final String PROPERTY = "stoker.leakDetection";
    static final int SAMPLE_INTERVAL = 128;

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

    /** Carries the stack of the acquire() call; never thrown. */
    static final class AcquiredAt extends Throwable {
        AcquiredAt() {
            super("ClipBatch acquired here", null, false, true);
            // Start the trace at the caller of acquire(): the pool's own frames say nothing.
            StackTraceElement[] frames = getStackTrace();
            int first = 0;
            while (first < frames.length - 1 && isPoolFrame(frames[first])) {
                first++;
            }
            setStackTrace(Arrays.copyOfRange(frames, first, frames.length));
        }

        private static boolean isPoolFrame(StackTraceElement frame) {
            String name = frame.getClassName();
            return name.equals(BatchPool.class.getName()) || name.startsWith(LeakDetection.class.getName());
        }
    }
}
