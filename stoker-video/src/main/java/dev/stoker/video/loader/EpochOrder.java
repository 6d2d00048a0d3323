package dev.stoker.video.loader;

import dev.stoker.pipeline.EpochSource;
import dev.stoker.video.dataset.Dataset;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The order videos are visited in: a pure function of (seed, epoch), a Fisher–Yates shuffle per epoch,
 * so the order is known ahead and a rerun sees the same sequence.
 */
final class EpochOrder implements EpochSource<VideoTask> {
    private final Dataset dataset;
    private final long seed;
    private final boolean shuffle;
    private final int epochs;

    EpochOrder(Dataset dataset, long seed, boolean shuffle, int epochs) {
        this.dataset = dataset;
        this.seed = seed;
        this.shuffle = shuffle;
        this.epochs = epochs;
    }

    @Override
    public List<VideoTask> epoch(int epoch) {
        if (epochs >= 0 && epoch >= epochs) {
            return null;
        }
        int n = dataset.size();
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        if (shuffle) {
            SplittableRandom random = new SplittableRandom(seed ^ (0x9E3779B97F4A7C15L * (epoch + 1)));
            for (int i = n - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        }
        List<VideoTask> tasks = new ArrayList<>(n);
        for (int index : order) {
            tasks.add(new VideoTask(dataset.get(index), index, epoch));
        }
        return tasks;
    }
}
