package dev.stoker.cli;

import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.StageStats;
import dev.stoker.store.sampler.KnownOrder;
import dev.stoker.store.sampler.PageCache;
import dev.stoker.video.dataset.Dataset;
import dev.stoker.video.dataset.SampleDraw;
import dev.stoker.video.dataset.VideoEntry;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * {@code --cold} over video files, like the {@code nocache} tool: every file of the dataset is evicted
 * from the page cache before the run, and each file again as soon as the loader's fetch stage has read it
 * (followed along the sampler's known order and the stage's completed count), so its next read, an epoch
 * later, comes from the device too. Eviction is advice ({@link PageCache#evict}).
 */
final class ColdFiles implements AutoCloseable {
    static final ColdFiles NONE = new ColdFiles(null);

    private final Thread follower;
    private volatile boolean stop;

    private ColdFiles(Thread follower) {
        this.follower = follower;
    }

    static void evictAll(Dataset data) {
        Set<Path> files = new LinkedHashSet<>();
        for (VideoEntry e : data.entries()) {
            files.add(e.path());
        }
        for (Path file : files) {
            evict(file);
        }
    }

    static void evict(Path file) {
        try {
            PageCache.evict(file);
        } catch (IOException e) {
            // a missing or unreadable file: the loader reports it as a failure of its own
        }
    }

    /** Follows {@code loader} (just opened, at its start state) until closed. */
    static ColdFiles follow(VideoLoader loader, Dataset data) {
        Iterator<SampleDraw> order = KnownOrder.draws(loader.sampler(), loader.state(), -1);
        Pipeline<?> pipeline = loader.pipeline();
        ColdFiles[] self = new ColdFiles[1];
        Thread t = Thread.ofPlatform().daemon().name("cold-files").unstarted(() -> {
            long evicted = 0;
            while (!self[0].stop) {
                long read = fetched(pipeline);
                while (evicted < read && order.hasNext()) {
                    evict(data.get(order.next().sampleIndex()).path());
                    evicted++;
                }
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        self[0] = new ColdFiles(t);
        t.start();
        return self[0];
    }

    /** Items the fetch stage has finished (emitted, failed or dropped). */
    private static long fetched(Pipeline<?> pipeline) {
        for (StageStats s : pipeline.stats().stages()) {
            if (s.name().endsWith("fetch")) {
                return s.itemsOut() + s.failures() + s.dropped();
            }
        }
        return 0;
    }

    @Override
    public void close() {
        if (follower != null) {
            stop = true;
            follower.interrupt();
            try {
                follower.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
