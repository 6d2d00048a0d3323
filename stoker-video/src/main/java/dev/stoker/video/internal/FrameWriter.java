package dev.stoker.video.internal;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.Resize;
import dev.stoker.video.ClipDecoder;
import dev.stoker.video.ClipRequest;
import org.bytedeco.ffmpeg.avutil.AVFrame;

/**
 * Where a {@link ClipDecoder} made with {@link ClipDecoder#ClipDecoder(boolean, org.bytedeco.ffmpeg.avutil.AVBufferRef,
 * FrameWriter)} puts each wanted frame instead of converting it with swscale into host memory: a GPU kernel
 * reading hardware frames, say. The decoder still selects the frames (same {@link ClipSpec} semantics,
 * frame-exact by timestamp); the writer only draws them. Called on the decoding thread, once per clip slot a
 * frame fills, while the frame is valid; it must not keep the frame.
 */
@FunctionalInterface
public interface FrameWriter {

    /** Writes {@code frame} as slot {@code target.slot()} of {@code target.request()}'s clip. */
    void write(AVFrame frame, Target target);

    /**
     * One slot to fill.
     *
     * @param path            the video's name, for messages
     * @param rotationDegrees the video's clockwise display rotation
     * @param request         the clip; its destination is whatever the writer understands (for a GPU writer, device
     *                        memory viewed as a segment: never read or written from Java)
     * @param slot            the clip's frame slot, 0-based
     * @param outWidth        output width
     * @param outHeight       output height
     * @param framing         the clip's crop position, short side and mirror ({@link Resize#framing()}), for
     *                          {@link Resize#sourceWindow}; a mirrored clip is drawn right to left
     */
    record Target(String path, int rotationDegrees, ClipRequest request, int slot, int outWidth, int outHeight,
                  Resize.Framing framing) {
    }
}
