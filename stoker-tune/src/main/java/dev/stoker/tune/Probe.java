package dev.stoker.tune;

import dev.stoker.pipeline.Reconfiguration.Knob;

/**
 * One change the online tuner tries: a knob of a stage from a value to another, and why; with a {@code partner},
 * a second stage's change made and judged together with it (two stages saturated at once: neither helps alone).
 */
record Probe(String stage, Knob knob, int from, int to, String reason, Probe partner) {
    Probe(String stage, Knob knob, int from, int to, String reason) {
        this(stage, knob, from, to, reason, null);
    }

    boolean increase() {
        return to > from;
    }

    /** Names the direction of the change (not its size): what a cool-down holds back. */
    String key() {
        return stage + "/" + knob + "/" + (increase() ? "+" : "-") + (partner == null ? "" : "&" + partner.key());
    }

    /** The key of the change that undoes this one. */
    String reverseKey() {
        return stage + "/" + knob + "/" + (increase() ? "-" : "+") + (partner == null ? "" : "&" + partner.reverseKey());
    }

    /** The way back: the partner's step undone first, then this one's. */
    Probe back(String why) {
        Probe mine = new Probe(stage, knob, to, from, why, null);
        return partner == null ? mine : new Probe(partner.stage, partner.knob, partner.to, partner.from, why, mine);
    }
}
