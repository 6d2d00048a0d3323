package dev.stoker.loader.clip;


/** What a clip does when it asks for frames past the video's last frame. */
public enum PastEndPolicy {
    /**
     * Move the clip's start earlier so that it ends on the last frame; when the video is too short
     * even starting at frame 0, the last frame is repeated to fill the clip. The default.
     */
    SHIFT,
    /** Keep the start; slots past the end get the last frame again. */
    REPEAT_LAST,
    /** Fail the clip with {@code FailureReason.OUT_OF_RANGE}. */
    SKIP
}
