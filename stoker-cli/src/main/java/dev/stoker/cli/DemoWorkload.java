package dev.stoker.cli;

import dev.stoker.bench.internal.CpuBurn;
import dev.stoker.loader.LoaderStage;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineBuilder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The synthetic video-loading pipeline of {@code stoker demo}: no files, no FFmpeg, only the shape and
 * the costs of a real loader. The numbers are picked so that decode limits throughput with its default
 * two workers (about 330 clips/s against the 400 clips/s the training step takes), and the consumer
 * limits it once decode gets four: raising one stage's concurrency in a config moves the bottleneck.
 *
 * <pre>
 * source (500 video ids per epoch, shuffled by epoch)
 *   → fetch    simulated I/O, 2 ms, 8 virtual threads
 *   → demux    each video into 2–4 clips, cheap
 *   → decode   6 ms of CPU per clip, 2 workers, input order
 *   → augment  0.5 ms of CPU per clip
 *   → batch(8) → collate
 *   → consumer: a 20 ms training step per batch
 * </pre>
 */
final class DemoWorkload {
    static final int VIDEOS_PER_EPOCH = 500;
    static final int FETCH_WORKERS = 8;
    static final long FETCH_LATENCY_MICROS = 2_000;
    static final long DECODE_CPU_MICROS = 6_000;
    static final int DECODE_WORKERS = 2;
    static final long AUGMENT_CPU_MICROS = 500;
    static final int BATCH_SIZE = 8;
    static final long TRAIN_STEP_MILLIS = 20;
    static final int SINK_CAPACITY = 4;
    /** The demo pipeline's stages, in order: a video loader's, with an augment stage. */
    enum Stage implements LoaderStage {
        FETCH, DEMUX, DECODE, AUGMENT, BATCH, COLLATE
    }

    /** Stage names in pipeline order, as stats, traces and configs name them. */
    static final List<String> STAGES = LoaderStage.names(List.of(Stage.values()));

    record VideoId(int epoch, int index) {
        String name() {
            return String.format(Locale.ROOT, "video-%05d", index);
        }

        @Override
        public String toString() { return name(); }
    }

    /** A video's bytes, as fetched; only the length is simulated. */
    record EncodedVideo(VideoId id, int lengthBytes) { }

    /** One clip's packets, as demuxed. */
    record ClipPackets(VideoId video, int clip, int clipsInVideo) { }

    /** Decoded (and later augmented) frames, summarised by a checksum. */
    record Clip(VideoId video, int clip, long pixelChecksum) { }

    /** What the training step gets. */
    record Batch(int clips, long checksum) { }

    private final CpuBurn cpu;

    DemoWorkload(CpuBurn cpu) {
        this.cpu = cpu;
    }

    PipelineBuilder<Batch> pipeline() {
        return Pipeline.<VideoId>fromEpochs(DemoWorkload::epoch)
                .map(Stage.FETCH.stageName(), DemoWorkload::fetch, s -> s.concurrency(FETCH_WORKERS).virtualThreads())
                .flatMap(Stage.DEMUX.stageName(), DemoWorkload::demux)
                .map(Stage.DECODE.stageName(), this::decode, s -> s.concurrency(DECODE_WORKERS).ordered())
                .map(Stage.AUGMENT.stageName(), this::augment)
                .batch(Stage.BATCH.stageName(), BATCH_SIZE, false)
                .map(Stage.COLLATE.stageName(), DemoWorkload::collate);
    }

    /** The video ids of one epoch, shuffled with the epoch as seed; the source never ends. */
    static List<VideoId> epoch(int epoch) {
        List<VideoId> ids = new ArrayList<>(VIDEOS_PER_EPOCH);
        for (int i = 0; i < VIDEOS_PER_EPOCH; i++) {
            ids.add(new VideoId(epoch, i));
        }
        Collections.shuffle(ids, new Random(epoch));
        return ids;
    }

    static EncodedVideo fetch(VideoId id) {
        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(FETCH_LATENCY_MICROS));
        return new EncodedVideo(id, (int) (1_000_000 + mix(id.index()) % 4_000_000));
    }

    static List<ClipPackets> demux(EncodedVideo video) {
        int clips = 2 + (int) (mix(video.id().index()) % 3);
        List<ClipPackets> out = new ArrayList<>(clips);
        for (int c = 0; c < clips; c++) {
            out.add(new ClipPackets(video.id(), c, clips));
        }
        return out;
    }

    Clip decode(ClipPackets packets) {
        long seed = mix(packets.video().index() * 31L + packets.clip());
        return new Clip(packets.video(), packets.clip(), cpu.burn(DECODE_CPU_MICROS, seed));
    }

    Clip augment(Clip clip) {
        return new Clip(clip.video(), clip.clip(), cpu.burn(AUGMENT_CPU_MICROS, clip.pixelChecksum() + clip.video().epoch()));
    }

    static Batch collate(List<Clip> clips) {
        long checksum = 0;
        for (Clip c : clips) {
            checksum = checksum * 31 + c.pixelChecksum();
        }
        return new Batch(clips.size(), checksum);
    }

    /** Stands in for a training step on the GPU: the CPU is free meanwhile. */
    static void trainStep(Batch batch) throws InterruptedException {
        Thread.sleep(TRAIN_STEP_MILLIS);
    }

    private static long mix(long x) {
        x = (x ^ (x >>> 33)) * 0xff51afd7ed558ccdL;
        x = (x ^ (x >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return (x ^ (x >>> 33)) & Long.MAX_VALUE;
    }
}
