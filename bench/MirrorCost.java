// What mirroring a clip costs (--flip; docs/benchmarks.md, "Training augmentations"), one thread, beside the copy a
// raw clip costs anyway. Run from the repository root after 'mvn -pl stoker-cli -am package -DskipTests':
//
//   java -cp 'stoker-cli/target/stoker-cli.jar:stoker-cli/target/lib/*' bench/MirrorCost.java [ROUNDS] [CLIPS]
//
// A clip is 16 RGB24 frames of 112x112; a raw shard's stored frames are 170 pixels wide (a 340x256 video at short
// side 128). Each round times CLIPS clips of each way in turn (the order the same every round, so that load on the
// machine falls on all of them alike) and prints microseconds a clip:
//   mirror-in-place   Resize.mirrorRows over the clip in place: what the CPU converter does to a mirrored frame
//   mirror-from-rows  the centre crop copied mirrored out of the wider stored rows: a mirrored raw clip
//   crop-rows         the same crop copied row by row, unmirrored: a raw clip without --flip
//   swap-bytes        the first version's mirror (bytes swapped in a heap row), the yardstick the landed one beat
import dev.stoker.loader.clip.Resize;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;

public class MirrorCost {
    static final int SIZE = 112;
    static final int FRAMES = 16;
    static final int STORED = 170;

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 6;
        int clips = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment clip = arena.allocate((long) FRAMES * SIZE * SIZE * 3, 64);
            MemorySegment stored = arena.allocate((long) FRAMES * SIZE * STORED * 3, 64);
            for (long i = 0; i < stored.byteSize(); i++) {
                stored.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
            }
            byte[] row = new byte[STORED * 3 + 1];
            long left = (STORED - SIZE) / 2 * 3L;
            int rows = FRAMES * SIZE;
            for (int round = 1; round <= rounds; round++) {
                long t = System.nanoTime();
                for (int c = 0; c < clips; c++) {
                    Resize.mirrorRows(clip, 0, SIZE * 3L, clip, 0, SIZE, rows, row);
                }
                double inPlace = micros(t, clips);
                t = System.nanoTime();
                for (int c = 0; c < clips; c++) {
                    Resize.mirrorRows(stored, left, STORED * 3L, clip, 0, SIZE, rows, row);
                }
                double fromRows = micros(t, clips);
                t = System.nanoTime();
                for (int c = 0; c < clips; c++) {
                    long from = left;
                    for (int r = 0; r < rows; r++, from += STORED * 3L) {
                        MemorySegment.copy(stored, from, clip, r * SIZE * 3L, SIZE * 3L);
                    }
                }
                double cropRows = micros(t, clips);
                t = System.nanoTime();
                for (int c = 0; c < clips; c++) {
                    swapBytes(clip, rows, row);
                }
                double swap = micros(t, clips);
                System.out.printf(Locale.ROOT, "round %d: mirror-in-place %.0f us, mirror-from-rows %.0f us, crop-rows %.0f us,"
                        + " swap-bytes %.0f us a clip%n", round, inPlace, fromRows, cropRows, swap);
            }
        }
    }

    static void swapBytes(MemorySegment clip, int rows, byte[] row) {
        int rowBytes = SIZE * 3;
        for (long r = 0; r < rows; r++) {
            long at = r * rowBytes;
            MemorySegment.copy(clip, ValueLayout.JAVA_BYTE, at, row, 0, rowBytes);
            for (int left = 0, right = rowBytes - 3; left < right; left += 3, right -= 3) {
                for (int c = 0; c < 3; c++) {
                    byte b = row[left + c];
                    row[left + c] = row[right + c];
                    row[right + c] = b;
                }
            }
            MemorySegment.copy(row, 0, clip, ValueLayout.JAVA_BYTE, at, rowBytes);
        }
    }

    static double micros(long startNanos, int clips) {
        return (System.nanoTime() - startNanos) / 1e3 / clips;
    }
}
