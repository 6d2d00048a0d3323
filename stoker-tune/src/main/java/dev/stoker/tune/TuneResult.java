package dev.stoker.tune;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.tune.internal.Experiment;
import java.util.List;

/**
 * What a search found.
 *
 * @param best          the best trial (the incumbent when the search stopped)
 * @param bestOptions   its options document: write it ({@link LoaderOptions#toJson()}), load it with
 *                      {@code stoker bench --config}
 * @param start         the first trial (the start config)
 * @param startMean     mean throughput of the start config over its runs (its repeats, and the references it ran
 *                      as the best so far): the same figure as {@code bestMean} when nothing beat it
 * @param bestMean      mean throughput of the best config over its runs (it may have run several times: a
 *                      confirmation, references)
 * @param noise         the relative noise of one run: the pooled standard deviation of log throughput over the
 *                      configs that ran more than once (0.05: about 5%; NaN when none did)
 * @param experiments   every trial, in order
 * @param stopReason    why the search stopped, in words
 */
public record TuneResult(Experiment best, LoaderOptions bestOptions, Experiment start,
                         double startMean, double bestMean, double noise, List<Experiment> experiments,
                         String stopReason) {

    /** Whether nothing beat the start config: the best is the start itself, and {@link #speedup()} is 1. */
    public boolean bestIsStart() {
        return best.trial() == start.trial();
    }

    /** The best config's mean throughput over the start config's. */
    public double speedup() {
        return startMean > 0 ? bestMean / startMean : Double.NaN;
    }
}
