package dev.stoker.pipeline.internal;

import java.nio.file.Path;

/** What the engine does with values it drops or names: release what they hold, describe them for messages. */
public final class Resources {
    private static final int MAX_DESCRIPTION_CHARS = 200;

    private Resources() { }

    /**
     * Closes what a discarded value holds (failure, close, a dropped partial batch): the value if it is
     * {@link AutoCloseable}, or else an iterable's elements (a batch), recursively; a {@link Path} is an
     * iterable of names and holds nothing.
     */
    public static void release(Object value) {
        if (value instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception ignored) {
                // Best effort: a resource that fails to close while being discarded has nowhere to report to.
            }
        } else if (value instanceof Iterable<?> many && !(value instanceof Path)) {
            for (Object each : many) {
                release(each);
            }
        }
    }

    /** {@code text} cut to 200 characters, for failure reports and logs. */
    public static String abbreviate(String text) {
        return text.length() <= MAX_DESCRIPTION_CHARS ? text : text.substring(0, MAX_DESCRIPTION_CHARS - 3) + "...";
    }

    /** {@code String.valueOf(value)}, cut to 200 characters. */
    public static String describe(Object value) {
        return abbreviate(String.valueOf(value));
    }
}
