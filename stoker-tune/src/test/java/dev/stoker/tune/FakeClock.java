package dev.stoker.tune;

/** A {@link NanoClock} that moves only when told to wait: every wait returns at once, the time it would have taken passed. */
final class FakeClock implements NanoClock {
    long now = 1_000_000_000L;

    @Override
    public long nanoTime() { return now; }

    @Override
    public void parkNanos(long nanos) {
        now += Math.max(1, nanos);
    }
}
