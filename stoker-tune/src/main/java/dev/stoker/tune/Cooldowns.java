package dev.stoker.tune;

import java.util.HashMap;
import java.util.Map;

/**
 * What the online tuner holds back for a while, counted in its windows: a probe that did not pay (each failure of
 * the same probe waits twice as long, up to {@link #MAX_WINDOWS}), and the way back from one that did (no
 * immediate undo). So the tuner settles instead of oscillating.
 */
final class Cooldowns {
    static final int BASE_WINDOWS = 6;
    static final int MAX_WINDOWS = 64;

    private final Map<String, Long> coolUntil = new HashMap<>();   // probe key -> window index
    private final Map<String, Integer> failures = new HashMap<>();
    private long windowIndex;

    /** The tuner's clock moved on by {@code windows} windows. */
    void advance(long windows) {
        windowIndex += windows;
    }

    boolean cooling(String probeKey) {
        return coolUntil.getOrDefault(probeKey, -1L) > windowIndex;
    }

    void kept(Probe p) {
        failures.remove(p.key());
        coolUntil.put(p.reverseKey(), windowIndex + BASE_WINDOWS);
    }

    void steppedBack(Probe p) {
        int n = failures.merge(p.key(), 1, Integer::sum);
        coolUntil.put(p.key(), windowIndex + Math.min(MAX_WINDOWS, (long) BASE_WINDOWS << Math.min(n - 1, 6)));
    }

    /** The workload changed: what held before says nothing now. */
    void clear() {
        coolUntil.clear();
        failures.clear();
    }
}
