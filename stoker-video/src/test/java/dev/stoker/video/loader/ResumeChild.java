package dev.stoker.video.loader;

import dev.stoker.video.Resize;
import dev.stoker.video.batch.BatchLayout;
import dev.stoker.video.batch.ClipBatch;
import dev.stoker.video.batch.ClipInfo;
import dev.stoker.video.dataset.Dataset;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.StringJoiner;
import java.util.zip.CRC32;

/**
 * A training process for {@link VideoLoaderExactResumeTest} to kill: loads the dataset in {@code args[0]}
 * and prints, for every batch, {@code BATCH <record>} then {@code STATE <json>} (as a trainer would save
 * its checkpoint), each line flushed.
 */
public final class ResumeChild {
    private ResumeChild() {
    }

    /** Random clips and random crops, batches of 2, two epochs. */
    static LoaderOptions options() {
        return LoaderOptions.builder().order(5, true, 2).batch(2, false, BatchLayout.NTHWC)
                .size(64, 64, Resize.Mode.SHORT_SIDE_RANDOM_CROP, 96).build();
    }

    /** A batch as text: each clip's file and frame times, and a checksum of the pixels (crops included). */
    static String record(ClipBatch batch) {
        StringJoiner clips = new StringJoiner(" ");
        for (ClipInfo c : batch.clips()) {
            clips.add(c.path().getFileName() + "@" + Arrays.toString(c.frameTimestampsSeconds()).replace(" ", ""));
        }
        CRC32 crc = new CRC32();
        crc.update(batch.data().asByteBuffer());
        return clips + " #" + Long.toHexString(crc.getValue());
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        Dataset dataset = Dataset.open(Path.of(args[0]));
        long pauseMillis = Long.parseLong(args[1]);
        try (VideoLoader loader = VideoLoader.open(dataset, options())) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    System.out.println("BATCH " + record(batch));
                    System.out.println("STATE " + loader.state().toJson().replaceAll("\\s+", " "));
                    System.out.flush();
                }
                Thread.sleep(pauseMillis); // the training step
            }
        }
        System.out.println("END");
    }
}
