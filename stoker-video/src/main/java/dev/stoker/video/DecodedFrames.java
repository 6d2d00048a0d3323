package dev.stoker.video;

import dev.stoker.loader.clip.DecodedClip;
import java.util.List;

/**
 * Decoded but not yet converted clips of one video (from {@link ClipDecoder#decodeFrames}): references
 * to the decoder's pictures of every wanted frame, and each clip's description. Give it to a
 * {@link ClipConverter}, then close it; closing without converting just drops the pictures.
 */
public final class DecodedFrames implements AutoCloseable {
    private final ClipRun run;
    private final List<DecodedClip> clips;
    private boolean closed;

    DecodedFrames(ClipRun run, List<DecodedClip> clips) {
        this.run = run;
        this.clips = List.copyOf(clips);
    }

    /** The clips these frames belong to: indices, timestamps, frames decoded. */
    public List<DecodedClip> clips() { return clips; }

    void convertWith(FrameConverter converter) {
        if (closed) {
            throw new IllegalStateException("decoded frames already closed");
        }
        if (run != null) {
            run.convertHeld(converter);
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            if (run != null) {
                run.releaseHeld();
            }
        }
    }
}
