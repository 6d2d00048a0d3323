package dev.stoker.bench.internal;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.stoker.loader.ClipStartStats;
import java.util.Locale;

/**
 * What a run's clip starts cost and what its decode budget left to draw from: the loader's count over the clips
 * it handed out ({@link ClipStartStats}) and the dataset's starts ({@link EligibleStarts}, null when not scanned).
 *
 * @param maxLeadFrames  the decode budget, -1 for none
 * @param meanLeadFrames the mean decode lead of a delivered clip's start (NaN when the loader does not know it)
 * @param fallbackClips  delivered clips over the budget: their video had no start within it
 * @param eligible       the dataset's starts under the options, or null
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record ClipStartReport(int maxLeadFrames, double meanLeadFrames, long fallbackClips, EligibleStarts eligible) {

    public static ClipStartReport of(ClipStartStats stats, EligibleStarts eligible) {
        return new ClipStartReport(stats.maxLeadFrames(), stats.meanLeadFrames(), stats.fallbackClips(), eligible);
    }

    /** One line for the bench's summary. */
    public String summary() {
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "clip starts      %10.1f frames of decode lead a clip",
                meanLeadFrames));
        s.append(maxLeadFrames < 0 ? " (no budget)" : String.format(Locale.ROOT, " (budget %d: %d clips over it)",
                maxLeadFrames, fallbackClips));
        if (eligible != null && eligible.videos() > 0) {
            s.append(String.format(Locale.ROOT, "; %.1f of %.1f starts a video eligible (%.1f%%)", eligible.eligibleStartsPerVideo(),
                    eligible.fittingStartsPerVideo(), 100 * eligible.eligibleShare()));
            if (eligible.videosWithoutEligible() > 0) {
                s.append(String.format(Locale.ROOT, ", %d of %d videos with none", eligible.videosWithoutEligible(),
                        eligible.videos()));
            }
        }
        return s.append('\n').toString();
    }
}
