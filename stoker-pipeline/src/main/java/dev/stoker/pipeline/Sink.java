package dev.stoker.pipeline;

/**
 * The buffer between the last stage and the consumer: results ready ahead of {@code next()}.
 *
 * @param capacity results buffered (1+)
 */
public record Sink(int capacity) {
    public Sink {
        if (capacity < 1) {
            throw new IllegalArgumentException("sink capacity: " + capacity + " (expected: 1+)");
        }
    }

    public static Sink buffer(int capacity) {
        return new Sink(capacity);
    }
}
