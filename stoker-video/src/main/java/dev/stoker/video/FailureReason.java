package dev.stoker.video;

import dev.stoker.pipeline.subprocess.ChildCrashedException;
import java.util.Optional;

/**
 * Why a video could not be loaded: the one list of reasons that {@link VideoException}, the loader's failures,
 * its quarantine and {@code stoker scan} count by. {@link #code()} is what stats, {@code failures} and the
 * quarantine file print; {@link #fileFault()} says whether the failure is a property of the file (it fails again,
 * whenever it is read, until the file changes), which is what the quarantine skips and what a scan reports.
 */
public enum FailureReason {
    /** The path names no video file or folder of frames: a property of the dataset's listing, which may be fixed by a copy. */
    NOT_FOUND("not-found", false, "no such file"),
    /** The file has 0 bytes (an interrupted download, a placeholder). */
    EMPTY_FILE("empty-file", true, "the file has 0 bytes"),
    /** Reading the file failed (permissions, a network mount's hiccup): a retry may succeed. */
    IO_ERROR("io-error", false, "the file could not be read"),
    /** No container format FFmpeg knows (a text file, an image saved as .mp4). */
    UNKNOWN_FORMAT("unknown-format", true, "not a container FFmpeg reads"),
    /** The file ends early: an index (moov) missing, reading stopped before the end of the stream. */
    TRUNCATED("truncated", true, "the file ends early"),
    /** The container or the stream's data is damaged: unreadable headers, packets that fail to decode. */
    CORRUPT("corrupt", true, "damaged container or stream data"),
    /** A container without a video stream (audio only, subtitles). */
    NO_VIDEO_STREAM("no-video-stream", true, "no video stream"),
    /** A codec, pixel format or frame size this build cannot decode. */
    UNSUPPORTED_CODEC("unsupported-codec", true, "a codec or frame size this build cannot decode"),
    /** A video file over the 2 GiB the loader reads a file whole in (a long recording: cut it, or ingest it). */
    TOO_LARGE("too-large", true, "over the 2 GiB a video file is read whole in"),
    /** The clip asked for does not fit the video (too short for the clip, with past-end SKIP): the options'. */
    OUT_OF_RANGE("out-of-range", false, "the clip does not fit in the video"),
    /** The item killed the child JVM that decoded it twice: counted, never quarantined (the crash may be ours). */
    CHILD_CRASHED(ChildCrashedException.REASON, false, "crashed the child JVM"),
    /** Out of memory, an FFmpeg allocation that failed, a bug: not the file's fault. */
    INTERNAL("internal", false, "an internal error");

    private final String code;
    private final boolean fileFault;
    private final String description;

    FailureReason(String code, boolean fileFault, String description) {
        this.code = code;
        this.fileFault = fileFault;
        this.description = description;
    }

    /** The stable short name that stats, failure lists and the quarantine file use, e.g. {@code truncated}. */
    public String code() { return code; }

    /** Whether the failure is a property of the file, so that reading it again fails again until it changes. */
    public boolean fileFault() { return fileFault; }

    /** What the reason means, for people (a scan's table). */
    public String description() { return description; }

    /** The reason with {@code code}, if it is one of these (a failure may carry another exception's class name). */
    public static Optional<FailureReason> ofCode(String code) {
        for (FailureReason r : values()) {
            if (r.code.equals(code)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }

    /** Whether a failure counted under {@code code} is a property of the file ({@link #fileFault()}). */
    public static boolean isFileFault(String code) {
        return ofCode(code).map(FailureReason::fileFault).orElse(false);
    }
}
