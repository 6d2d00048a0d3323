package dev.stoker.video.internal;

import dev.stoker.video.FailureReason;
import dev.stoker.video.VideoProbe;

/**
 * What opening a video once told ({@link VideoProbe#probe}): its properties, or why it cannot be loaded.
 *
 * @param path            the file as named
 * @param sizeBytes       its size, -1 when it could not be read
 * @param reason          why it failed, null when it is fine
 * @param operation       what failed ({@code open}, {@code index}, {@code decode}), empty when fine
 * @param detail          what went wrong, without the path; empty when fine
 * @param container       FFmpeg's demuxer name, empty when the container was not read
 * @param codec           the video stream's codec, empty when none was found
 * @param width           displayed width, 0 when unknown
 * @param height          displayed height, 0 when unknown
 * @param durationSeconds from the first frame's start to the last frame's end, as indexed; 0 when unknown
 * @param frameCount      frames the index holds; 0 when unknown
 * @param firstGopFrames  frames decoded from the first group of pictures
 * @param probeNanos      how long the probe took
 */
public record ProbeResult(String path, long sizeBytes, FailureReason reason, String operation, String detail,
                          String container, String codec, int width, int height, double durationSeconds,
                          int frameCount, int firstGopFrames, long probeNanos) {

    /** Whether the video opened and its first group of pictures decoded without an error. */
    public boolean ok() {
        return reason == null;
    }
}
