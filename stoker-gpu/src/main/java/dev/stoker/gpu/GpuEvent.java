package dev.stoker.gpu;

/**
 * A point in a {@link GpuStream}'s work ({@code CUevent}): complete once everything the stream was given
 * before it has run. Device-independent so that what waits on copies can be tested with fake events.
 */
public interface GpuEvent extends AutoCloseable {

    /** Whether the work before the event has finished; never blocks ({@code cuEventQuery}). */
    boolean isComplete();

    /** Blocks until the work before the event has finished ({@code cuEventSynchronize}). */
    void await();

    /**
     * Device time from {@code start} to this event in milliseconds ({@code cuEventElapsedTime}), both
     * complete; {@code NaN} where the device cannot time events.
     */
    double elapsedMillisSince(GpuEvent start);

    /** Destroys the event. Idempotent. */
    @Override
    void close();
}
