package dev.stoker.pipeline.subprocess.internal;

import java.util.List;

/**
 * What the child writes to the results ring next: an output, or a control record (done, settled, an epoch end,
 * the end, a fatal error). A group's output ({@link Wire#GROUP_OUTPUT}) names its {@code members}: the items a
 * batch stage gathered, each with its input's id and sequence.
 */
record Outbound(int type, long id, long seq, Object value, List<ItemLineage> members) {

    static Outbound control(int type, long id, Object value) {
        return new Outbound(type, id, 0, value, List.of());
    }

    boolean isOutput() {
        return type == Wire.OUTPUT || type == Wire.GROUP_OUTPUT;
    }

    /** The last record of a run: the writer sends a report before it and stops after it. */
    boolean endsTheRun() {
        return type == Wire.END || type == Wire.FATAL;
    }
}
