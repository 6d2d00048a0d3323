package dev.stoker.pipeline.subprocess.internal;

/** The two rings one child shares with this process: items to it, results from it. */
record ChildRings(SharedRing items, SharedRing results) {

    /** After the child died, once what it left is handled: both rings empty for the next one. */
    void reset() {
        items.reset();
        results.reset();
    }
}
