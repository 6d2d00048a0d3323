package dev.stoker.video.loader;

import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import java.util.Arrays;
import java.util.StringJoiner;
import java.util.zip.CRC32;

/**
 * What tests compare between two runs: a batch as one line of text. (In the test-jar of stoker-video, for the
 * loaders of the modules above it too.)
 */
public final class BatchText {
    private BatchText() {
    }

    /** Each clip's source and frame times, and a checksum of the pixels (crops included). */
    public static String of(ClipBatch batch) {
        StringJoiner clips = new StringJoiner(" ");
        for (ClipInfo c : batch.clips()) {
            clips.add(c.path().getFileName() + "@" + Arrays.toString(c.frameTimestampsSeconds()).replace(" ", ""));
        }
        CRC32 crc = new CRC32();
        crc.update(batch.data().asByteBuffer());
        return clips + " #" + Long.toHexString(crc.getValue());
    }
}
