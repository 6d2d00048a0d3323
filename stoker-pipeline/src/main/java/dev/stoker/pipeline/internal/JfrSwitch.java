package dev.stoker.pipeline.internal;

import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;

/**
 * Tells cheaply whether an event type is enabled in any running recording. Creating an event object
 * per task just to ask {@code isEnabled()} would allocate on the hot path; this flag is flipped by a
 * recorder listener instead, and the worker reads one volatile boolean.
 */
final class JfrSwitch {
    private final Class<? extends Event> type;
    private volatile boolean on;

    JfrSwitch(Class<? extends Event> type) {
        this.type = type;
        if (FlightRecorder.isAvailable()) {
            FlightRecorder.addListener(new jdk.jfr.FlightRecorderListener() {
                @Override
                public void recordingStateChanged(jdk.jfr.Recording recording) {
                    refresh();
                }
            });
            refresh();
        }
    }

    private void refresh() {
        try {
            on = FlightRecorder.isInitialized() && jdk.jfr.EventType.getEventType(type).isEnabled();
        } catch (RuntimeException e) {
            on = false;
        }
    }

    boolean get() { return on; }
}
