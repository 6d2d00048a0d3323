package dev.stoker.pipeline.internal;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR event for one task of one stage: recorded when a flight recording enables {@code stoker.Task}
 * ({@code -XX:StartFlightRecording:settings=profile} does not; use {@code jfr configure} or a .jfc that
 * enables it, or {@code +stoker.Task#enabled=true} on JDK 17+). Costs one {@code isEnabled()} check
 * per task when off.
 */
@Name("stoker.Task")
@Label("Stoker Task")
@Category({"Stoker", "Pipeline"})
@Description("One task of a pipeline stage: its stage, the item it worked on, and how long it ran")
@StackTrace(false)
final class TaskEvent extends Event {
    @Label("Stage")
    String stage;

    @Label("Item Id")
    long itemId;

    @Label("Item")
    String item;

    @Label("Failed")
    boolean failed;
}
