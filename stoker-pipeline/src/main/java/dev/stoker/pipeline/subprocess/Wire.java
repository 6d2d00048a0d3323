package dev.stoker.pipeline.subprocess;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stoker.pipeline.PipelineSpec;
import dev.stoker.pipeline.StageStats;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The protocol between parent and child: record types on the two rings, the launch description the child
 * reads from its standard input, and the report the child sends now and then.
 *
 * <pre>
 * parent → child (items ring):   ITEM(id = input id, seq = epoch, payload = input)  EPOCH_END  END
 * child → parent (results ring): HELLO(id = pid)  OUTPUT(id = input id, seq = output seq, payload = output)
 *                                DONE(id = input id)  EPOCH_END  END  REPORT(payload = JSON)  FATAL(payload = message)
 * </pre>
 * An input's outputs carry its id and a sequence that numbers them the same way on every run (for a chain of
 * flat-maps, 16 bits per level), so that after a crash the parent drops the ones it already delivered.
 * {@code DONE} follows an input's last output (or its drop or failure).
 */
final class Wire {
    private Wire() { }

    static final int ITEM = 1;
    static final int EPOCH_END = 2;
    static final int END = 3;
    static final int HELLO = 10;
    static final int OUTPUT = 11;
    static final int DONE = 12;
    static final int REPORT = 13;
    static final int FATAL = 14;

    static final ObjectMapper JSON = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /**
     * What the child needs to start: one JSON line on its standard input.
     *
     * @param file         the shared memory file
     * @param ringBytes    data bytes of each ring (items ring first, then results ring)
     * @param spec         the stages to run
     * @param inputCodec   codec name of the items
     * @param outputCodec  codec name of the results
     * @param reportMillis how often to send a report
     * @param trace        whether to record trace slices
     * @param parentPid    the parent's pid (the child exits when it is gone)
     */
    record Launch(String file, long ringBytes, PipelineSpec spec, String inputCodec, String outputCodec,
                  long reportMillis, boolean trace, long parentPid) {

        long fileBytes() {
            return 2 * SharedRing.regionBytes(ringBytes);
        }
    }

    /** The two rings' regions in the file. */
    static MemorySegment itemsRegion(MemorySegment file, long ringBytes) {
        return file.asSlice(0, SharedRing.regionBytes(ringBytes));
    }

    static MemorySegment resultsRegion(MemorySegment file, long ringBytes) {
        long region = SharedRing.regionBytes(ringBytes);
        return file.asSlice(region, region);
    }

    /** A failure in a child stage, as reported. */
    record ChildFailure(String stage, long inputId, String item, String reason, String error, String message, long timestampMillis) { }

    /** One trace slice from the child. */
    record ChildSlice(String name, String category, long threadId, String threadName, long startNanos,
                      long durationNanos, long itemId, String detail) { }

    /**
     * What the child reports periodically: its stages' stats (its own source excluded), its failures since
     * the last report, and trace slices since the last report.
     */
    record Report(long pid, List<StageStats> stages, List<ChildFailure> failures, List<ChildSlice> slices) { }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String utf8(MemorySegment payload) {
        return new String(payload.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }
}
