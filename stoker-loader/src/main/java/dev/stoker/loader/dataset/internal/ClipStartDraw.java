package dev.stoker.loader.dataset.internal;

import dev.stoker.loader.dataset.ClipStartBudget;

/**
 * Where a video's clips start under a decode budget ({@link ClipStartBudget}), and what the budget left to draw from.
 *
 * @param startsSeconds  the clip starts, ascending, each exactly a frame's time (so the clip's first frame is that frame)
 * @param leadFrames     the decode lead of each start's frame
 * @param fittingStarts  frames a whole clip can start at (in the entry's range)
 * @param eligibleStarts those of them whose decode lead is within the budget
 * @param fallback       no start was eligible: every clip starts at the cheapest fitting frame instead
 */
public record ClipStartDraw(double[] startsSeconds, int[] leadFrames, int fittingStarts, int eligibleStarts,
                            boolean fallback) {
    public ClipStartDraw {
        if (startsSeconds.length != leadFrames.length) {
            throw new IllegalArgumentException("leadFrames: " + leadFrames.length + " (expected: one per start, "
                    + startsSeconds.length + ")");
        }
        startsSeconds = startsSeconds.clone();
        leadFrames = leadFrames.clone();
    }

    @Override
    public double[] startsSeconds() { return startsSeconds.clone(); }

    @Override
    public int[] leadFrames() { return leadFrames.clone(); }
}
