package dev.stoker.tune;

import dev.stoker.tune.internal.TrialPhase;
import java.util.Map;

/**
 * A trial the search proposes: a point, the change from the incumbent in words, and why.
 *
 * @param point      every knob's value
 * @param knob       the knob it moves (the first, if several)
 * @param delta      new value minus old of that knob
 * @param change     e.g. {@code decode.concurrency 3→4}
 * @param hypothesis why this should help
 * @param phase      a hypothesis, a second look or a sweep step
 * @param priority   higher first
 */
record Move(Map<String, Integer> point, String knob, int delta, String change, String hypothesis, TrialPhase phase,
            double priority) { }
