package dev.stoker.pipeline.subprocess.internal;

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
 * parent → child (items ring):   ITEM(id = input id, seq = epoch, payload = skips, input)  EPOCH_END  END
 * child → parent (results ring): HELLO(id = pid)  OUTPUT(id = input id, seq = output seq, payload = output)
 *                                GROUP_OUTPUT(payload = members, output)  SETTLED(id = input id)
 *                                DONE(id = input id)  EPOCH_END  END  REPORT(payload = JSON)  FATAL(payload = message)
 * </pre>
 * An input's outputs carry its id and a sequence that numbers them the same way on every run (for a chain of
 * flat-maps, 16 bits per level), so that after a crash the parent drops the ones it already delivered. An
 * output of a batch stage (or of the stages after one) is a {@code GROUP_OUTPUT}: its payload starts with
 * the members' count and their (input id, sequence) pairs. An item sent again after a crash lists the
 * sequences the parent already has ("skips", a count and the sequences), so that the child drops them
 * before they reach a batch: batched again, they would be delivered twice. {@code SETTLED} says that every
 * descendant of an input still in flight waits in a batch stage; {@code DONE} follows an input's last output
 * (or its drop or failure).
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
    static final int GROUP_OUTPUT = 15;
    static final int SETTLED = 16;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final long[] NO_SKIPS = new long[0];

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

    /** Bytes before the input in an ITEM payload that skips {@code skips} sequences (8-aligned). */
    static long itemPrefixBytes(int skips) {
        return 8 + 8L * skips;
    }

    static void writeItemPrefix(MemorySegment payload, long[] skips) {
        payload.set(INT, 0, skips.length);
        MemorySegment.copy(skips, 0, payload, LONG, 8, skips.length);
    }

    /** The sequences an ITEM payload says to skip, sorted. */
    static long[] itemSkips(MemorySegment payload) {
        int count = payload.get(INT, 0);
        if (count == 0) {
            return NO_SKIPS;
        }
        long[] skips = new long[count];
        MemorySegment.copy(payload, LONG, 8, skips, 0, count);
        return skips;
    }

    /** Bytes before the output in a GROUP_OUTPUT payload of {@code members} members (8-aligned). */
    static long groupPrefixBytes(int members) {
        return 8 + 16L * members;
    }

    static void writeGroupPrefix(MemorySegment payload, long[] inputIds, long[] seqs) {
        payload.set(INT, 0, inputIds.length);
        for (int i = 0; i < inputIds.length; i++) {
            payload.set(LONG, 8 + 16L * i, inputIds[i]);
            payload.set(LONG, 16 + 16L * i, seqs[i]);
        }
    }

    static int groupMembers(MemorySegment payload) {
        return payload.get(INT, 0);
    }

    static long groupMemberInputId(MemorySegment payload, int member) {
        return payload.get(LONG, 8 + 16L * member);
    }

    static long groupMemberSeq(MemorySegment payload, int member) {
        return payload.get(LONG, 16 + 16L * member);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String utf8(MemorySegment payload) {
        return new String(payload.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }
}
