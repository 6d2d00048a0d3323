package dev.stoker.pipeline.internal;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** JFR event: a stage's input queue fill, sampled every housekeeping tick (10 ms) while enabled. */
@Name("stoker.QueueSample")
@Label("Stoker Queue Sample")
@Category({"Stoker", "Pipeline"})
@Description("Fill of a stage's input queue (or the sink buffer)")
@StackTrace(false)
final class QueueSampleEvent extends Event {
    @Label("Queue")
    String queue;

    @Label("Size")
    int size;

    @Label("Capacity")
    int capacity;
}
