package dev.stoker.loader;

/**
 * What the starts of the clips a loader handed out cost to reach, by their videos' own indexes
 * ({@link dev.stoker.loader.batch.ClipInfo#leadFrames()}), and how many broke a decode budget because their video
 * had no start within it ({@link dev.stoker.loader.dataset.ClipStartBudget}: they start at its cheapest one).
 *
 * @param maxLeadFrames the loader's decode budget, -1 for none
 * @param clips         clips handed out
 * @param clipsWithLead those whose decode lead is known
 * @param leadFrames    the sum of their decode leads
 * @param fallbackClips clips whose lead is over the budget (0 without one)
 */
public record ClipStartStats(int maxLeadFrames, long clips, long clipsWithLead, long leadFrames, long fallbackClips) {
    /** A loader that does not count them. */
    public static final ClipStartStats NONE = new ClipStartStats(-1, 0, 0, 0, 0);

    /** The mean decode lead of a clip's start, NaN when none is known. */
    public double meanLeadFrames() {
        return clipsWithLead == 0 ? Double.NaN : (double) leadFrames / clipsWithLead;
    }
}
