package dev.stoker.gpu;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.video.internal.ClipSelection;
import dev.stoker.video.Video;
import dev.stoker.video.VideoException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Hybrid decoding: NVDEC sessions and CPU workers, threads of their own, take videos from one {@link HybridQueue}, so
 * that each pool decodes at its own rate and together they pass either alone; the costly videos go to NVDEC. The
 * loader's decode stage hands each video over ({@link #decode}) and waits for it, so the stage keeps its input order
 * and failure handling; its workers outnumber the pools' (the loader gives it both pools' size again), so that videos
 * wait in the queue for the routing to choose among. A CPU worker decodes as the CPU loader does and copies the clips
 * into their device buffers ({@link CpuClipUploader}); each result says which pool decoded it.
 */
final class HybridDecoding implements VideoDecoding {
    private final HybridQueue<Job> queue = new HybridQueue<>();
    private final Pool nvdec;
    private final Pool cpu;
    private final List<Thread> threads = new ArrayList<>();

    /**
     * @param sessions   NVDEC sessions (threads), each with a decoder from {@code sessionFactory}
     * @param cpuWorkers CPU workers (threads), each with a decoder from {@code cpuFactory}
     */
    HybridDecoding(int sessions, Supplier<? extends DeviceClipDecoder> sessionFactory, int cpuWorkers,
                   Supplier<? extends DeviceClipDecoder> cpuFactory) {
        if (sessions < 0 || cpuWorkers < 0 || sessions + cpuWorkers == 0) {
            throw new IllegalArgumentException("pools: " + sessions + " NVDEC sessions, " + cpuWorkers
                    + " CPU workers (expected: 0+ each, 1+ in all)");
        }
        this.nvdec = new Pool(HybridQueue.Pool.NVDEC, sessions, sessionFactory, null);
        this.cpu = new Pool(HybridQueue.Pool.CPU, cpuWorkers, cpuFactory, DecodePath.CPU);
        nvdec.start();
        cpu.start();
    }

    /**
     * What a video costs to decode: the frames its clips decode (from each one's keyframe) times its pixels. A clip's
     * spatial crops are one decode: a spec is counted once.
     */
    static double cost(Video video, List<DeviceClipDecoder.Target> clips) {
        double pixels = (double) video.info().codedWidth() * video.info().codedHeight();
        long frames = 0;
        Set<ClipSpec> counted = new HashSet<>();
        for (DeviceClipDecoder.Target t : clips) {
            if (!counted.add(t.spec())) {
                continue;
            }
            try {
                ClipSelection selection = video.selectClip(t.spec());
                int[] f = selection.frames();
                frames += Math.max(1, f[f.length - 1] - video.decodeStartPacket(f[0], 0) + 1);
            } catch (VideoException e) {
                frames += 1;   // out of range: the decoder says so, at no cost
            }
        }
        return frames * pixels;
    }

    @Override
    public DeviceClipDecoder.Decoded decode(Video video, List<DeviceClipDecoder.Target> clips) {
        Job job = new Job(video, clips);
        queue.put(job, cost(video, clips));
        return job.await(queue);
    }

    @Override
    public List<DecodePoolStats> pools() {
        return List.of(nvdec.stats(), cpu.stats());
    }

    /** Stops the pools once the videos they hold are decoded, and frees their decoders. */
    @Override
    public void close() {
        queue.close();
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** A video handed to the pools, and what became of it. */
    private static final class Job {
        final Video video;
        final List<DeviceClipDecoder.Target> clips;
        private DeviceClipDecoder.Decoded result;
        private Throwable failure;
        private boolean done;

        Job(Video video, List<DeviceClipDecoder.Target> clips) {
            this.video = video;
            this.clips = clips;
        }

        synchronized void finish(DeviceClipDecoder.Decoded decoded, Throwable failed) {
            result = decoded;
            failure = failed;
            done = true;
            notifyAll();
        }

        /**
         * The result, once a pool finished the job. Interrupted, a job no pool took is taken back; one being decoded
         * is waited for all the same, since its decoder writes into the caller's buffers until it ends.
         */
        DeviceClipDecoder.Decoded await(HybridQueue<Job> queue) {
            boolean interrupted = false;
            synchronized (this) {
                while (!done) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        interrupted = true;
                        if (queue.remove(this)) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException("interrupted while " + video.info().path()
                                    + " waited for a decoder", e);
                        }
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            KeptFailure.rethrow(failure);
            return result;
        }
    }

    /** One pool: its workers take from the queue, each with a decoder of its own, and count what they did. */
    private final class Pool {
        final String name;
        final HybridQueue.Pool kind;
        final int workers;
        final Supplier<? extends DeviceClipDecoder> factory;
        final DecodePath path;
        final LongAdder videos = new LongAdder();
        final LongAdder clips = new LongAdder();
        final LongAdder frames = new LongAdder();
        final LongAdder busyNanos = new LongAdder();
        final long startNanos = System.nanoTime();

        /** @param path what its results say decoded them; null: what the decoder says */
        /** A pool of {@code kind}, named as its rows show it ({@code nvdec}, {@code cpu}). */
        Pool(HybridQueue.Pool kind, int workers, Supplier<? extends DeviceClipDecoder> factory, DecodePath path) {
            this.name = kind.name().toLowerCase(java.util.Locale.ROOT);
            this.kind = kind;
            this.workers = workers;
            this.factory = factory;
            this.path = path;
        }

        void start() {
            for (int i = 0; i < workers; i++) {
                threads.add(Thread.ofPlatform().name("hybrid-" + name + "-" + i).daemon(true).start(this::work));
            }
        }

        private void work() {
            DeviceClipDecoder decoder = null;
            try {
                Job job;
                while ((job = queue.take(kind)) != null) {
                    long t0 = System.nanoTime();
                    try {
                        if (decoder == null) {
                            decoder = factory.get();
                        }
                        DeviceClipDecoder.Decoded decoded = decoder.decode(job.video, job.clips);
                        if (path != null) {
                            decoded = decoded.on(path);
                        }
                        videos.increment();
                        clips.add(decoded.clips().size());
                        decoded.clips().forEach(c -> frames.add(c.decodedFrames()));
                        job.finish(decoded, null);
                    } catch (Throwable t) {
                        job.finish(null, t);
                    } finally {
                        busyNanos.add(System.nanoTime() - t0);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                if (decoder != null) {
                    decoder.close();
                }
            }
        }

        DecodePoolStats stats() {
            long elapsed = Math.max(1, System.nanoTime() - startNanos);
            return new DecodePoolStats(name, workers, videos.sum(), clips.sum(), frames.sum(),
                    workers == 0 ? 0 : Math.min(1, busyNanos.sum() / ((double) elapsed * workers)));
        }
    }
}
