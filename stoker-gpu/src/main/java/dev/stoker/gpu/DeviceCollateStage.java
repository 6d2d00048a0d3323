package dev.stoker.gpu;

import dev.stoker.loader.internal.LoaderFront;
import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.dataset.EpochSampler;
import dev.stoker.pipeline.TraceRecorder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The NVDEC loader's collate stage: copies a batch's clips from their device clip buffers into one
 * device batch buffer ({@code cuMemcpyDtoDAsync}, device to device: a few microseconds for a batch, no
 * trip through the host), waits for the copies, gives the clip buffers back and records the labels, the
 * clips' metadata and the resume state. Each clip buffer already holds its clip in the batch's layout,
 * so the batch is the clips end to end in either layout. Waiting for a free batch buffer is how the
 * consumer's unreturned batches hold the loader back. Each worker thread copies on a stream of its own.
 */
final class DeviceCollateStage implements Function<List<DeviceClip>, CollatedDeviceBatch>, AutoCloseable {
    /** The collate streams' track in a trace (a thread id no Java thread has). */
    private static final long COLLATE_TRACK_ID = 0x7fff_0000_0000_0001L;

    private final DeviceBufferPool batches;
    private final BatchShape batchShape;
    private final EpochSampler sampler;
    private final TraceRecorder trace;
    private final PerThread<GpuStream> streams;

    /** Copies into {@code batches}' buffers, on streams of their device. */
    DeviceCollateStage(DeviceBufferPool batches, BatchShape batchShape, EpochSampler sampler, TraceRecorder trace) {
        this.batches = batches;
        this.batchShape = batchShape;
        this.sampler = sampler;
        this.trace = trace;
        this.streams = new PerThread<>(batches.device()::createStream);
    }

    @Override
    public CollatedDeviceBatch apply(List<DeviceClip> clips) {
        try {
            if (clips.isEmpty() || clips.size() > batchShape.clipsPerBatch()) {
                throw new IllegalArgumentException("clips: " + clips.size() + " (expected: 1.." + batchShape.clipsPerBatch() + ")");
            }
            GpuStream s = streams.get();
            return collate(clips, batches.acquireInStage(), s);
        } finally {
            clips.forEach(DeviceClip::close);
        }
    }

    /** Copies {@code clips} into {@code batch} on {@code s}; gives {@code batch} back if that fails. */
    private CollatedDeviceBatch collate(List<DeviceClip> clips, DeviceBufferPool.Buffer batch, GpuStream s) {
        boolean queued = false;
        GpuEvent copied = null;
        try {
            long clipBytes = batchShape.clipBytes();
            long enqueuedNanos = System.nanoTime();
            try (GpuEvent started = s.record()) {
                queued = true;
                for (int i = 0; i < clips.size(); i++) {
                    s.copyOnDeviceAsync(clips.get(i).buffer().pointer(), batch.pointer() + i * clipBytes, clipBytes);
                }
                copied = s.record();
                copied.await();
                traceCopies(started, copied, enqueuedNanos, clips.size() * clipBytes);
            }
            int[] labels = new int[clips.size()];
            List<ClipInfo> infos = new ArrayList<>(clips.size());
            for (int i = 0; i < clips.size(); i++) {
                labels[i] = clips.get(i).info().label();
                infos.add(clips.get(i).info());
            }
            DeviceClip last = clips.getLast();
            return new CollatedDeviceBatch(batch, clips.size() * clipBytes, batchShape.shape(clips.size()), batchShape.layout(),
                    labels, List.copyOf(infos), clips.stream().map(DeviceClip::path).toList(), s.handle(), copied,
                    LoaderFront.stateAfter(sampler, last.task().epoch(), last.task().position(), last.clip(),
                            last.clipsOfVideo()));
        } catch (RuntimeException | Error e) {
            if (queued) {
                // Copies still queued read the clip buffers and write the batch buffer: drain before both go back.
                try {
                    s.synchronize();
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            if (copied != null) {
                copied.close();
            }
            batch.close();
            throw e;
        }
    }

    /** One slice per batch on the collate track: the copies' device time where the device times events. */
    private void traceCopies(GpuEvent started, GpuEvent copied, long enqueuedNanos, long bytes) {
        if (trace == null) {
            return;
        }
        long now = System.nanoTime();
        double deviceMillis = copied.elapsedMillisSince(started);
        long durationNanos = Double.isNaN(deviceMillis) ? now - enqueuedNanos : (long) (deviceMillis * 1e6);
        String detail = String.format(Locale.ROOT, "%.1f MB", bytes / 1e6)
                + (Double.isNaN(deviceMillis) ? "" : String.format(Locale.ROOT, ", %.3f ms on the device", deviceMillis));
        trace.foreignSlice("D2D collate", "gpu", COLLATE_TRACK_ID, "gpu collate stream (" + batches.device().id() + ")",
                Math.max(enqueuedNanos, now - durationNanos), durationNanos, -1, detail);
    }

    @Override
    public void close() {
        streams.close();
    }
}
