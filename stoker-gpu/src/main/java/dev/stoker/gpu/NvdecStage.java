package dev.stoker.gpu;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.video.loader.internal.OpenedVideo;
import dev.stoker.video.loader.internal.VideoFront;
import dev.stoker.video.loader.internal.VideoTask;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * The NVDEC loader's decode stage: every clip of one demuxed video, planned as the CPU loader plans it
 * (clip starts from demux, {@link LoaderOptions.Clip#at}, {@link VideoFront#resize} for the crop seed),
 * decoded into device clip buffers from the pool by its {@link VideoDecoding}: this worker's own NVDEC session, kept
 * for the loader's life, or the hybrid pools; {@link #close()} frees them all.
 * A video that fails leaves no buffer behind and is reported by the pipeline with its path and reason.
 */
final class NvdecStage implements Function<OpenedVideo, List<DeviceClip>>, AutoCloseable {
    private final LoaderOptions options;
    private final DeviceBufferPool clipBuffers;
    private final VideoDecoding decoding;
    private final Map<DecodePath, LongAdder> clipsByPath = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> fallbackReasons = new ConcurrentHashMap<>();
    final LongAdder clips = new LongAdder();
    final LongAdder decodedFrames = new LongAdder();
    final LongAdder fallbackClips = new LongAdder();

    NvdecStage(LoaderOptions options, DeviceBufferPool clipBuffers, VideoDecoding decoding) {
        this.options = options;
        this.clipBuffers = clipBuffers;
        this.decoding = decoding;
    }

    @Override
    public List<DeviceClip> apply(OpenedVideo opened) {
        VideoTask task = opened.task();
        double[] starts = opened.clipStarts();
        List<DeviceBufferPool.Buffer> buffers = new ArrayList<>(starts.length);
        try (opened) {
            if (starts.length == 0) {
                return List.of();
            }
            List<DeviceClipDecoder.Target> targets = new ArrayList<>(starts.length);
            for (int i = 0; i < starts.length; i++) {
                DeviceBufferPool.Buffer buffer = clipBuffers.acquireInStage();
                buffers.add(buffer);
                targets.add(new DeviceClipDecoder.Target(VideoFront.clip(options, task, i, starts[i]), VideoFront.resize(options, task, i),
                        buffer.pointer(), buffer.byteSize()));
            }
            DeviceClipDecoder.Decoded decoded = decoding.decode(opened.video(), targets);
            List<DecodedClip> made = decoded.clips();
            if (made.size() != starts.length) {
                throw new IllegalStateException(task + ": " + made.size() + " clips decoded (expected: " + starts.length + ")");
            }
            List<DeviceClip> out = new ArrayList<>(made.size());
            for (int i = 0; i < made.size(); i++) {
                DecodedClip c = made.get(i);
                double[] times = c.ptsSeconds().stream().mapToDouble(Double::doubleValue).toArray();
                ClipInfo info = new ClipInfo(task.entry().path(), task.entry().label(), times, c.decodedFrames(),
                        c.leadFrames(), task.entry().text());
                out.add(new DeviceClip(task, task.firstClip() + i, task.firstClip() + made.size(), info, buffers.get(i),
                        decoded.path()));
                clips.increment();
                decodedFrames.add(c.decodedFrames());
            }
            clipsByPath.computeIfAbsent(decoded.path(), p -> new LongAdder()).add(made.size());
            if (decoded.cpuFallbackReason() != null) {
                fallbackClips.add(made.size());
                fallbackReasons.computeIfAbsent(decoded.cpuFallbackReason(), r -> new LongAdder()).add(made.size());
            }
            return out;
        } catch (RuntimeException | Error e) {
            buffers.forEach(DeviceBufferPool.Buffer::close);
            throw e;
        }
    }

    /** Clips decoded on the CPU instead, by reason, sorted. */
    Map<String, Long> fallbackReasons() {
        Map<String, Long> out = new TreeMap<>();
        fallbackReasons.forEach((reason, count) -> out.put(reason, count.sum()));
        return out;
    }

    /** Clips decoded so far by each path. */
    Map<DecodePath, Long> clipsByPath() {
        Map<DecodePath, Long> out = new java.util.EnumMap<>(DecodePath.class);
        clipsByPath.forEach((path, count) -> out.put(path, count.sum()));
        return out;
    }

    /** The decode pools' figures (hybrid); empty when each worker decodes itself. */
    List<DecodePoolStats> pools() { return decoding.pools(); }

    @Override
    public void close() {
        decoding.close();
    }
}
