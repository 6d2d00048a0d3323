package dev.stoker.tune;

import dev.stoker.loader.LoaderOption;
import dev.stoker.loader.StageOption;
import dev.stoker.loader.VideoStage;
import dev.stoker.pipeline.Verdict;
import dev.stoker.tune.internal.Experiment;
import dev.stoker.tune.internal.TrialMetrics;
import dev.stoker.tune.internal.TrialPhase;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The search's rules: read the incumbent trial's per-stage stats, and propose changes that should help,
 * each with its reason in words and a priority. A point already tried is not proposed, except that the
 * search asks again for the {@link #STRONG} proposals among points run once and not kept (a second look).
 * Then, when no rule has anything left to try, a coordinate sweep of the knob that has moved throughput
 * most so far.
 *
 * <ol>
 *   <li><b>momentum</b>: the change that made the incumbent helped; a bigger step the same way;</li>
 *   <li><b>saturated bottleneck</b>: more workers for the stage the verdict names, unless its task time
 *       rose with its concurrency as fast as the concurrency itself (contention: a shared lock, or cores
 *       oversubscribed), then fewer; with another stage busy 90%+, one worker more for both together (for
 *       either alone only moves the limit to the other);</li>
 *   <li><b>oversubscribed cores</b>: more busy workers than cores: fewer workers, for the bottleneck and for
 *       stages that mostly idle or wait downstream;</li>
 *   <li><b>full queue</b>: a stage's input queue is full most of the time but the stage is not saturated:
 *       what follows it is slow, and the upstream stage's workers are wasted;</li>
 *   <li><b>empty queue at the bottleneck</b> or bursts: a deeper queue keeps it fed;</li>
 *   <li><b>consumer waits</b> with the sink nearly empty: a larger sink buffer (and more upstream, rule 2);</li>
 *   <li><b>idle stages</b>: fewer workers;</li>
 *   <li><b>options</b> (knobs of the document that are not a stage's or the sink's: {@code decode.threads},
 *       {@code decode.fusedConvert}, {@code batch.size}): their neighbours, decoder threads first when cores idle
 *       while decode is the bottleneck.</li>
 * </ol>
 */
final class Hypotheses {
    /**
     * Priority from which a proposal comes from the bottleneck's own signals (momentum, contention, a saturated
     * stage): a point such a rule proposes again, after one run of it was not kept, is run a second time
     * ({@link Tuner}), so that one stalled run does not close the direction the stats point to.
     */
    static final double STRONG = 70;

    private final SearchSpace space;
    private final int cores;

    Hypotheses(SearchSpace space, int cores) {
        this.space = space;
        this.cores = cores;
    }

    /** Proposals from the incumbent, best first, none of them tried already. */
    List<Move> propose(Experiment incumbent, Experiment madeIt, List<Experiment> history, Set<Map<String, Integer>> tried) {
        List<Move> moves = new ArrayList<>();
        Map<String, Integer> p = incumbent.point();
        TrialMetrics m = incumbent.metrics();
        Proposer out = new Proposer(p, tried, moves);

        // 1. momentum
        if (madeIt != null && madeIt.trial() == incumbent.trial() && madeIt.change() != null) {
            Experiment parent = find(history, madeIt.parent());
            Map<String, Integer> before = parent == null ? null : parent.point();
            if (before != null) {
                for (Knob k : space.knobs()) {
                    int was = before.get(k.name());
                    int now = p.get(k.name());
                    if (was != now && k.scale() != Knob.Scale.BOOLEAN) {
                        double gain = parent.samplesPerSecond() > 0
                                ? madeIt.samplesPerSecond() / parent.samplesPerSecond() - 1 : 0;
                        int next = k.scale() == Knob.Scale.LOG ? k.step(now, now > was ? 1 : -1) : k.clamp(now + 2 * (now - was));
                        out.add(k, next, String.format(Locale.ROOT, "%s %s→%s helped (%+.0f%%): a bigger step the same way",
                                k.label(), k.format(was), k.format(now), gain * 100), 100);
                        out.add(k, k.clamp(now + (now - was > 0 ? 1 : -1)), String.format(Locale.ROOT,
                                "%s %s→%s helped (%+.0f%%): one more step the same way", k.label(), k.format(was), k.format(now), gain * 100), 99);
                    }
                }
            }
        }
        if (m == null || m.stages().isEmpty()) {
            return moves;
        }
        double busyWorkers = 0;
        for (TrialMetrics.Stage s : m.stages()) {
            if (!s.name().equals("source")) {
                busyWorkers += s.busyWorkers();
            }
        }
        // Busy workers are not cores: a worker waiting on I/O or a lock is busy too. Count them as CPU only when
        // the trial measured its CPU near the cores it had (or did not measure it).
        double cpu = m.cpu();
        boolean oversubscribed = busyWorkers > 1.5 * cores && (Double.isNaN(cpu) || cpu >= 0.85 * cores);

        // 2. the saturated bottleneck
        String b = m.bottleneck();
        Knob bk = concurrencyKnob(b);
        TrialMetrics.Stage bs = m.stage(b);
        if (bk != null && bs != null && Verdict.State.SATURATED.code().equals(m.state())) {
            int c = p.get(bk.name());
            Experiment fewer = fewestWorkers(history, b, c);
            boolean contention = false;
            if (fewer != null) {
                TrialMetrics.Stage fs = fewer.metrics().stage(b);
                double perWorkerThen = fs.concurrency() / fs.taskMeanMillis();
                double perWorkerNow = c / bs.taskMeanMillis();
                if (fs.taskMeanMillis() > 0 && bs.taskMeanMillis() > 0 && perWorkerNow <= perWorkerThen * 1.05) {
                    contention = true;
                    out.add(bk, c - 1, String.format(Locale.ROOT,
                            "%s's task time rose from %.1f ms at %d workers to %.1f ms at %d: contention (a shared lock, or "
                                    + "cores oversubscribed), more workers add nothing; fewer", b, fs.taskMeanMillis(),
                            fs.concurrency(), bs.taskMeanMillis(), c), 90);
                }
            }
            if (!contention) {
                out.add(bk, c + 1, String.format(Locale.ROOT,
                        "%s is the bottleneck, saturated (busy %.0f%% of %d workers): one worker more", b, bs.busy() * 100, c), 80);
                // Another stage saturated as well: one worker more for either alone only moves the limit to the other
                // (read 1 and work 5 both near 500/s: read 2 gains 0-9%, work 6 nothing, both together 20%), so both
                // together first.
                TrialMetrics.Stage other = null;
                for (TrialMetrics.Stage s : m.stages()) {
                    if (!s.name().equals(b) && !s.name().equals("source") && concurrencyKnob(s.name()) != null
                            && s.busy() >= 0.9 && (other == null || s.busy() > other.busy())) {
                        other = s;
                    }
                }
                if (other != null) {
                    Knob otherKnob = concurrencyKnob(other.name());
                    out.add(bk, c + 1, otherKnob, p.get(otherKnob.name()) + 1, String.format(Locale.ROOT,
                            "%s (busy %.0f%% of %d workers) and %s (busy %.0f%% of %d) are both saturated: one worker more"
                                    + " for each", b, bs.busy() * 100, c, other.name(), other.busy() * 100, other.concurrency()), 81);
                }
                if (c >= 4) {
                    out.add(bk, c + Math.max(2, c / 2), String.format(Locale.ROOT,
                            "%s is the bottleneck, saturated (busy %.0f%% of %d workers): half as many workers again", b,
                            bs.busy() * 100, c), 75);
                }
            }
            if (oversubscribed) {
                out.add(bk, c - 1, String.format(Locale.ROOT,
                        "cores oversubscribed (%.1f busy workers on %d cores): fewer %s workers may each run faster",
                        busyWorkers, cores, b), 60);
            } else if (c >= bk.max()) {
                out.add(bk, c - 1, String.format(Locale.ROOT,
                        "%s is saturated at its most workers (%d): fewer may contend less", b, c), 40);
                out.add(bk, Math.max(1, c / 2), String.format(Locale.ROOT,
                        "%s is saturated at its most workers (%d): half as many may contend much less", b, c), 39);
            }
            Knob q = queueKnob(b);
            if (q != null && bs.queueEmpty() > 0.3) {
                out.add(q, q.step(p.get(q.name()), 1), String.format(Locale.ROOT,
                        "the bottleneck %s finds its input queue empty %.0f%% of the time: a deeper queue keeps it fed",
                        b, bs.queueEmpty() * 100), 50);
            }
        }
        List<TrialMetrics.Stage> stages = m.stages();
        for (int i = 1; i < stages.size(); i++) {
            TrialMetrics.Stage s = stages.get(i);
            TrialMetrics.Stage up = stages.get(i - 1);
            Knob sk = concurrencyKnob(s.name());
            Knob uk = concurrencyKnob(up.name());
            // 3. other stages, when cores are oversubscribed
            if (oversubscribed && sk != null && !s.name().equals(b) && s.concurrency() > 1
                    && (s.idle() > 0.5 || s.backPressured() > 0.3)) {
                out.add(sk, Math.max(1, s.concurrency() / 2), String.format(Locale.ROOT,
                        "%s idles %.0f%% and waits downstream %.0f%% of %d workers' time while %.1f workers are busy on %d "
                                + "cores: fewer %s workers free cores for %s", s.name(), s.idle() * 100, s.backPressured() * 100,
                        s.concurrency(), busyWorkers, cores, s.name(), b), 55);
            }
            // 4. a full queue in front of a stage that is not saturated
            if (uk != null && s.queueFull() > 0.7 && s.busy() < 0.7 && up.concurrency() > 1) {
                out.add(uk, up.concurrency() - 1, String.format(Locale.ROOT,
                        "the queue before %s is full %.0f%% of the time and %s is not saturated: what follows is slow, "
                                + "%s's extra workers only wait; fewer", s.name(), s.queueFull() * 100, s.name(), up.name()), 45);
            }
            // 5. bursts
            Knob q = queueKnob(s.name());
            if (q != null && !s.name().equals(b) && s.queueEmpty() > 0.4 && s.idle() > 0.3 && up.backPressured() > 0.2) {
                out.add(q, q.step(p.get(q.name()), 1), String.format(Locale.ROOT,
                        "%s's queue is empty %.0f%% of the time while %s waits for room %.0f%%: bursts; a deeper queue "
                                + "decouples them", s.name(), s.queueEmpty() * 100, up.name(), up.backPressured() * 100), 35);
            }
            // 7. idle stages
            if (sk != null && !s.name().equals(b) && s.concurrency() >= 2 && s.busy() < 0.25) {
                out.add(sk, Math.max(1, s.concurrency() / 2), String.format(Locale.ROOT,
                        "%s is busy only %.0f%% of %d workers: half as many do the same", s.name(), s.busy() * 100,
                        s.concurrency()), 20);
            }
            // another stage near saturation limits too
            if (sk != null && !s.name().equals(b) && s.busy() > 0.7 && !oversubscribed) {
                out.add(sk, s.concurrency() + 1, String.format(Locale.ROOT,
                        "%s is saturated too (busy %.0f%% of %d workers): one worker more", s.name(), s.busy() * 100,
                        s.concurrency()), 70 + 10 * (s.busy() - 0.7));
            }
        }
        // 6. the consumer waits
        Knob sink = find(LoaderOption.SINK_CAPACITY.path());
        if (sink != null) {
            if (m.dataReadiness() < 0.9 && m.sinkMeanFill() < 0.3) {
                out.add(sink, sink.step(p.get(sink.name()), 1), String.format(Locale.ROOT,
                        "the consumer waits (data ready on %.0f%% of calls) and the sink is %.0f%% full on average: a "
                                + "larger sink buffer absorbs bursts", m.dataReadiness() * 100, m.sinkMeanFill() * 100), 30);
            }
        }
        // 8. options
        for (Knob k : space.knobs()) {
            if (!k.isLoaderOption()) {
                continue;
            }
            int v = p.get(k.name());
            LoaderOption option = k.option().orElse(null);
            if (option == LoaderOption.DECODER_THREADS) {
                boolean idleCores = busyWorkers < cores * 0.8;
                boolean decodeLimits = VideoStage.DECODE.stageName().equals(b);
                out.add(k, v + 1, String.format(Locale.ROOT, "%s while %.1f of %d cores are busy: FFmpeg threads inside "
                        + "each decoder", decodeLimits ? "decode is the bottleneck" : "more decoder threads",
                        busyWorkers, cores), decodeLimits && idleCores ? 65 : 12);
                out.add(k, v - 1, "fewer decoder threads: less thread hand-off inside FFmpeg when cores are busy",
                        oversubscribed ? 50 : 11);
            } else if (option == LoaderOption.FUSED_CONVERT) {
                out.add(k, 1 - v, v == 0 ? "convert inside decode: one hand-off and one clip buffer less per clip"
                        : "convert as a stage of its own: decode and convert overlap on different cores", 15);
            } else if (k.scale() == Knob.Scale.BOOLEAN) {
                out.add(k, 1 - v, "try " + k.label() + " " + k.format(1 - v), 10);
            } else {
                out.add(k, k.step(v, 1), "try a larger " + k.label() + (option == LoaderOption.BATCH_SIZE
                        ? ": per-batch costs amortised over more samples" : ""), 10);
                out.add(k, k.step(v, -1), "try a smaller " + k.label(), 9);
            }
        }
        moves.sort((x, y) -> Double.compare(y.priority(), x.priority()));
        return dedupe(moves);
    }

    /** A coordinate sweep of the most sensitive knob that has untried values around the incumbent. */
    List<Move> sweep(Experiment incumbent, List<Experiment> history, Set<Map<String, Integer>> tried) {
        Map<String, Double> sensitivity = new HashMap<>();
        for (Experiment e : history) {
            Experiment parent = find(history, e.parent());
            if (parent == null || !e.ok() || !parent.ok() || parent.samplesPerSecond() <= 0) {
                continue;
            }
            String moved = null;
            int differences = 0;
            for (Knob k : space.knobs()) {
                if (!e.point().get(k.name()).equals(parent.point().get(k.name()))) {
                    moved = k.name();
                    differences++;
                }
            }
            if (differences == 1) {
                double s = Math.abs(e.samplesPerSecond() / parent.samplesPerSecond() - 1);
                sensitivity.merge(moved, s, Math::max);
            }
        }
        TrialMetrics m = incumbent.metrics();
        String bottleneck = m == null ? "" : m.bottleneck();
        List<Knob> order = new ArrayList<>(space.knobs());
        order.sort((x, y) -> {
            double sx = sensitivity.getOrDefault(x.name(), bottleneck.equals(x.stage()) && x.isConcurrency() ? 0.001 : 0.0);
            double sy = sensitivity.getOrDefault(y.name(), bottleneck.equals(y.stage()) && y.isConcurrency() ? 0.001 : 0.0);
            return Double.compare(sy, sx);
        });
        List<Move> moves = new ArrayList<>();
        for (Knob k : order) {
            Proposer out = new Proposer(incumbent.point(), tried, moves);
            int now = incumbent.point().get(k.name());
            List<Integer> values = k.sweepValues();
            values.sort((x, y) -> Integer.compare(Math.abs(x - now), Math.abs(y - now)));
            double s = sensitivity.getOrDefault(k.name(), 0.0);
            for (Integer v : values) {
                out.add(k, v, String.format(Locale.ROOT, "coordinate sweep of %s, %s (it moved throughput by up to "
                        + "%.0f%% per step so far)", k.name(), s > 0 ? "the most sensitive knob left" : "no rule has more to try",
                        s * 100), 0, TrialPhase.SWEEP);
            }
            if (!moves.isEmpty()) {
                return moves;
            }
        }
        return moves;
    }

    private Knob concurrencyKnob(String stage) {
        return stage == null ? null : find(StageOption.CONCURRENCY.pathFor(stage));
    }

    private Knob queueKnob(String stage) {
        return stage == null ? null : find(StageOption.QUEUE_CAPACITY.pathFor(stage));
    }

    private Knob find(String name) {
        for (Knob k : space.knobs()) {
            if (k.name().equals(name)) {
                return k;
            }
        }
        return null;
    }

    static Experiment find(List<Experiment> history, int trial) {
        for (Experiment e : history) {
            if (e.trial() == trial) {
                return e;
            }
        }
        return null;
    }

    /** The ok trial that ran {@code stage} with the fewest workers below {@code than}, with a task time. */
    private static Experiment fewestWorkers(List<Experiment> history, String stage, int than) {
        Experiment best = null;
        for (Experiment e : history) {
            if (!e.ok() || e.metrics() == null) {
                continue;
            }
            TrialMetrics.Stage s = e.metrics().stage(stage);
            if (s != null && s.concurrency() < than && s.taskMeanMillis() > 0 && s.busy() > 0.5
                    && (best == null || s.concurrency() < best.metrics().stage(stage).concurrency())) {
                best = e;
            }
        }
        return best;
    }

    private static List<Move> dedupe(List<Move> moves) {
        Map<Map<String, Integer>, Move> first = new java.util.LinkedHashMap<>();
        for (Move m : moves) {
            first.putIfAbsent(m.point(), m);
        }
        return new ArrayList<>(first.values());
    }

    /** Builds moves from the incumbent's point, skipping no-ops and tried points. */
    private record Proposer(Map<String, Integer> from, Set<Map<String, Integer>> tried, List<Move> into) {
        void add(Knob k, int value, String why, double priority) {
            add(k, value, why, priority, TrialPhase.HYPOTHESIS);
        }

        void add(Knob k, int value, String why, double priority, TrialPhase phase) {
            int now = from.get(k.name());
            int v = k.clamp(value);
            if (v == now) {
                return;
            }
            Map<String, Integer> point = new TreeMap<>(from);
            point.put(k.name(), v);
            if (tried.contains(point)) {
                return;
            }
            into.add(new Move(point, k.name(), v - now, k.label() + " " + k.format(now) + "→" + k.format(v), why, phase, priority));
        }

        /** Two knobs at once (judged together: neither may pay alone); skipped when either would not move. */
        void add(Knob k, int value, Knob k2, int value2, String why, double priority) {
            int now = from.get(k.name());
            int now2 = from.get(k2.name());
            int v = k.clamp(value);
            int v2 = k2.clamp(value2);
            if (v == now || v2 == now2) {
                return;
            }
            Map<String, Integer> point = new TreeMap<>(from);
            point.put(k.name(), v);
            point.put(k2.name(), v2);
            if (tried.contains(point)) {
                return;
            }
            into.add(new Move(point, k.name(), v - now, k.label() + " " + k.format(now) + "→" + k.format(v) + ", "
                    + k2.label() + " " + k2.format(now2) + "→" + k2.format(v2), why, TrialPhase.HYPOTHESIS, priority));
        }
    }
}
