package dev.stoker.video.loader;

import dev.stoker.video.ClipDecoder;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.DecodedClip;
import dev.stoker.video.batch.BatchCollator;
import dev.stoker.video.batch.BatchPool;
import dev.stoker.video.batch.ClipBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Decodes and converts every clip of one video in one pass (clips sharing GOPs decode them once), into
 * pooled one-clip buffers. Each worker thread keeps its own {@link ClipDecoder}, whose decoder and
 * swscale contexts are reused from video to video; {@link #close()} frees them all.
 */
final class DecodeStage implements Function<OpenedVideo, List<LoadedClip>>, AutoCloseable {
    private final LoaderOptions options;
    private final BatchPool clipBuffers;
    private final Queue<ClipDecoder> decoders = new ConcurrentLinkedQueue<>();
    private final ThreadLocal<ClipDecoder> decoder;
    final LongAdder clips = new LongAdder();
    final LongAdder decodedFrames = new LongAdder();

    DecodeStage(LoaderOptions options, BatchPool clipBuffers) {
        this.options = options;
        this.clipBuffers = clipBuffers;
        this.decoder = ThreadLocal.withInitial(() -> {
            ClipDecoder d = new ClipDecoder(options.decoderThreads(), options.skipNonReferenceFrames());
            decoders.add(d);
            return d;
        });
    }

    @Override
    public List<LoadedClip> apply(OpenedVideo opened) {
        List<ClipBatch> buffers = new ArrayList<>(opened.clipStarts().length);
        try (opened) {
            List<ClipRequest> requests = new ArrayList<>(buffers.size());
            for (int i = 0; i < opened.clipStarts().length; i++) {
                ClipBatch buffer = clipBuffers.acquire();
                buffers.add(buffer);
                long cropSeed = options.seed() * 0x9E3779B97F4A7C15L + opened.task().epoch() * 1_000_003L
                        + opened.task().index() * 31L + i;
                requests.add(new ClipRequest(options.clipAt(opened.clipStarts()[i]), options.resize(cropSeed),
                        BatchCollator.slot(buffer, 0)));
            }
            List<DecodedClip> decoded = decoder.get().decode(opened.video(), requests);
            List<LoadedClip> out = new ArrayList<>(decoded.size());
            for (int i = 0; i < decoded.size(); i++) {
                out.add(new LoadedClip(opened.task(), opened.clipStarts()[i], buffers.get(i), decoded.get(i)));
                clips.increment();
                decodedFrames.add(decoded.get(i).decodedFrames());
            }
            return out;
        } catch (InterruptedException e) {
            buffers.forEach(ClipBatch::close);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a clip buffer", e);
        } catch (RuntimeException | Error e) {
            buffers.forEach(ClipBatch::close);
            throw e;
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
