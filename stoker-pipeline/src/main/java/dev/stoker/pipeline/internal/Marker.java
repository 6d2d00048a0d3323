package dev.stoker.pipeline.internal;

/**
 * Control elements that travel through the queues in line with the items: an epoch boundary or the end
 * of the stream. Each stage forwards a marker only after every item taken before it has been emitted.
 */
public sealed interface Marker {
    record EpochEnd(int epoch) implements Marker { }

    record EndOfStream() implements Marker { }

    EndOfStream END = new EndOfStream();
}
