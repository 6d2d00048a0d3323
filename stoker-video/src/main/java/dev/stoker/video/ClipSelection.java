package dev.stoker.video;

/**
 * The frames a {@link ClipSpec} selects in a video, slot by slot, after its past-end policy: exactly what
 * {@link ClipDecoder} decodes for it.
 *
 * @param frames         for each slot, the frame index (0-based, presentation order)
 * @param shifted        true when {@link PastEndPolicy#SHIFT} moved the start earlier
 * @param repeatedFrames slots filled by repeating the last frame
 */
public record ClipSelection(int[] frames, boolean shifted, int repeatedFrames) {
    public ClipSelection {
        frames = frames.clone();
    }

    @Override
    public int[] frames() {
        return frames.clone();
    }
}
