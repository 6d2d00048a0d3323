package dev.stoker.video;

import dev.stoker.loader.clip.DecodedClip;
import java.util.List;

/**
 * Converts {@link DecodedFrames} to RGB24 at their requests' sizes, into their destinations: the
 * convert stage. One instance per thread (it caches swscale contexts); close it to free them.
 */
public final class ClipConverter implements AutoCloseable {
    private final FrameConverter converter = new FrameConverter();

    /** Writes every clip's frames into its request's destination; returns the clips' descriptions. */
    public List<DecodedClip> convert(DecodedFrames frames) {
        frames.convertWith(converter);
        return frames.clips();
    }

    @Override
    public void close() {
        converter.close();
    }
}
