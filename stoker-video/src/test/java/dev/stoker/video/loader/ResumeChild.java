package dev.stoker.video.loader;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A training process for {@link VideoLoaderExactResumeTest} to kill: loads the dataset in {@code args[0]}
 * and prints, for every batch, {@code BATCH <batch as text>} then {@code STATE <json>} (as a trainer would save
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

    public static void main(String[] args) throws IOException, InterruptedException {
        Dataset dataset = Dataset.open(Path.of(args[0]));
        long pauseMillis = Long.parseLong(args[1]);
        try (VideoLoader loader = VideoLoader.open(dataset, options())) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    System.out.println("BATCH " + BatchText.of(batch));
                    System.out.println("STATE " + loader.state().toJson().replaceAll("\\s+", " "));
                    System.out.flush();
                }
                Thread.sleep(pauseMillis); // the training step
            }
        }
        System.out.println("END");
    }
}
