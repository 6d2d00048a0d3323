package dev.stoker.video;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.clip.VideoInfo;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * One clip to decode: which frames, at what size, and where to write them. Frame k of the clip
 * goes to {@code destination} at offset {@code k * resize.frameBytes(info)}, RGB24 HWC, so a batch
 * tensor slot can be the destination and nothing is copied again.
 */
public record ClipRequest(ClipSpec spec, Resize resize, MemorySegment destination) {
    public ClipRequest {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(resize, "resize");
        Objects.requireNonNull(destination, "destination");
    }

    /** Bytes the destination needs for this video. */
    public long requiredBytes(VideoInfo info) {
        return spec.frameCount() * resize.frameBytes(info);
    }
}
