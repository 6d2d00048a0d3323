package dev.stoker.video.loader.internal;

import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.video.ClipConverter;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;

/**
 * Converts a decoded video's clips (swscale to RGB24 at the output size, with crop, colour range and
 * rotation) into their clip buffers, one {@link ClipConverter} per worker thread.
 */
public final class ConvertStage implements Function<DecodedVideo, List<LoadedClip>>, AutoCloseable {
    private final Queue<ClipConverter> converters = new ConcurrentLinkedQueue<>();
    private final ThreadLocal<ClipConverter> converter = ThreadLocal.withInitial(() -> {
        ClipConverter c = new ClipConverter();
        converters.add(c);
        return c;
    });

    @Override
    public List<LoadedClip> apply(DecodedVideo decoded) {
        try {
            List<DecodedClip> clips = converter.get().convert(decoded.frames());
            List<LoadedClip> out = new ArrayList<>(clips.size());
            for (int i = 0; i < clips.size(); i++) {
                out.add(new LoadedClip(decoded.task(), decoded.task().firstClip() + i,
                        decoded.task().firstClip() + clips.size(), decoded.clipStarts()[i], decoded.buffers().get(i),
                        clips.get(i)));
            }
            decoded.frames().close();
            return out;
        } catch (RuntimeException | Error e) {
            decoded.close();
            throw e;
        }
    }

    @Override
    public void close() {
        ClipConverter c;
        while ((c = converters.poll()) != null) {
            c.close();
        }
    }
}
