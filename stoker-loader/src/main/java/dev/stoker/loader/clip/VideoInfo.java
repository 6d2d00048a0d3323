package dev.stoker.loader.clip;

/**
 * What an opened video is, as indexed: the chosen video stream's geometry, timing and frame count.
 *
 * <p>Times are seconds. Clip times count from the first frame's presentation time
 * ({@code firstFramePtsSeconds}), whatever the container's start offset or edit list.
 *
 * @param path               the file's name as given when opening (for messages)
 * @param container          FFmpeg demuxer name, e.g. "mov,mp4,m4a,3gp,3g2,mj2"
 * @param codec              FFmpeg codec name, e.g. "h264"
 * @param streamIndex        index of the chosen video stream in the container
 * @param codedWidth         width of decoded pictures before rotation
 * @param codedHeight        height of decoded pictures before rotation
 * @param rotationDegrees    clockwise rotation applied for display: 0, 90, 180 or 270
 * @param displayWidth       width after rotation
 * @param displayHeight      height after rotation
 * @param pixelFormat        FFmpeg pixel format name, e.g. "yuv420p" ("unknown" if not known before decoding)
 * @param timeBaseNumerator  stream time base numerator
 * @param timeBaseDenominator stream time base denominator
 * @param startTimeSeconds   the stream's declared start time, NaN when absent
 * @param firstFramePtsSeconds presentation time of the first frame (clip time 0)
 * @param durationSeconds    from the first frame's start to the last frame's end
 * @param framesPerSecond    average frame rate as declared by the container, or measured when absent
 * @param frameCount         frames the decoder outputs
 * @param keyframeCount      entry points usable to start decoding
 * @param packetCount        video packets indexed
 * @param indexComplete      false when reading stopped early (truncated or damaged file)
 */
public record VideoInfo(
        String path,
        String container,
        String codec,
        int streamIndex,
        int codedWidth,
        int codedHeight,
        int rotationDegrees,
        int displayWidth,
        int displayHeight,
        String pixelFormat,
        int timeBaseNumerator,
        int timeBaseDenominator,
        double startTimeSeconds,
        double firstFramePtsSeconds,
        double durationSeconds,
        double framesPerSecond,
        int frameCount,
        int keyframeCount,
        int packetCount,
        boolean indexComplete) {
}
