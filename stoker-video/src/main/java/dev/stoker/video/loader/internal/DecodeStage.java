package dev.stoker.video.loader.internal;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.BatchCollator;
import dev.stoker.loader.batch.BatchPool;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.video.ClipDecoder;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.DecodedFrames;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * Decodes every clip of one video in one pass (clips sharing GOPs decode them once). Either hands the
 * decoded pictures to the convert stage ({@link #decode}) or converts them on the spot into pooled
 * one-clip buffers ({@link #decodeAndConvert}, the fused mode). Each worker thread keeps its own
 * {@link ClipDecoder}, whose decoder and swscale contexts are reused from video to video;
 * {@link #close()} frees them all.
 */
public final class DecodeStage implements AutoCloseable {
    private final LoaderOptions options;
    private final BatchPool clipBuffers;
    private final Queue<ClipDecoder> decoders = new ConcurrentLinkedQueue<>();
    private final ThreadLocal<ClipDecoder> decoder;
    public final LongAdder clips = new LongAdder();
    public final LongAdder decodedFrames = new LongAdder();

    public DecodeStage(LoaderOptions options, BatchPool clipBuffers) {
        this.options = options;
        this.clipBuffers = clipBuffers;
        this.decoder = ThreadLocal.withInitial(() -> {
            ClipDecoder d = new ClipDecoder(options.decode().threads(), options.decode().skipNonReferenceFrames());
            decoders.add(d);
            return d;
        });
    }

    /** Decode only; the convert stage writes the pixels. */
    public DecodedVideo decode(OpenedVideo opened) {
        List<ClipBatch> buffers = new ArrayList<>(opened.clipStarts().length);
        try (opened) {
            List<ClipRequest> requests = requests(opened, buffers);
            DecodedFrames frames = decoder.get().decodeFrames(opened.video(), requests);
            count(frames.clips());
            return new DecodedVideo(opened.task(), opened.clipStarts(), frames, buffers);
        } catch (RuntimeException | Error e) {
            buffers.forEach(ClipBatch::close);
            throw e;
        }
    }

    /** Decode and convert in one call (no separate convert stage). */
    public List<LoadedClip> decodeAndConvert(OpenedVideo opened) {
        List<ClipBatch> buffers = new ArrayList<>(opened.clipStarts().length);
        try (opened) {
            List<ClipRequest> requests = requests(opened, buffers);
            List<DecodedClip> decoded = decoder.get().decode(opened.video(), requests);
            count(decoded);
            List<LoadedClip> out = new ArrayList<>(decoded.size());
            for (int i = 0; i < decoded.size(); i++) {
                out.add(new LoadedClip(opened.task(), opened.task().firstClip() + i,
                        opened.task().firstClip() + decoded.size(), opened.clipStarts()[i], buffers.get(i), decoded.get(i)));
            }
            return out;
        } catch (RuntimeException | Error e) {
            buffers.forEach(ClipBatch::close);
            throw e;
        }
    }

    private List<ClipRequest> requests(OpenedVideo opened, List<ClipBatch> buffers) {
        List<ClipRequest> requests = new ArrayList<>(opened.clipStarts().length);
        for (int i = 0; i < opened.clipStarts().length; i++) {
            ClipBatch buffer = clipBuffers.acquireInStage("a clip buffer");
            buffers.add(buffer);
            requests.add(new ClipRequest(VideoFront.clip(options, opened.task(), i, opened.clipStarts()[i]),
                    VideoFront.resize(options, opened.task(), i), BatchCollator.slot(buffer, 0)));
        }
        return requests;
    }

    private void count(List<DecodedClip> decoded) {
        for (DecodedClip c : decoded) {
            clips.increment();
            decodedFrames.add(c.decodedFrames());
        }
    }

    /** Counts the clips of {@code batch} as decoded: for a loader whose decode runs in a child JVM. */
    public void countDelivered(ClipBatch batch) {
        for (ClipInfo c : batch.clips()) {
            clips.increment();
            decodedFrames.add(c.framesDecoded());
        }
    }

    @Override
    public void close() {
        ClipDecoder d;
        while ((d = decoders.poll()) != null) {
            d.close();
        }
    }
}
