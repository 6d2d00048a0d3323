package dev.stoker.pipeline;

import dev.stoker.pipeline.internal.CpuUse;
import java.util.List;
import java.util.Locale;

/**
 * Names the stage that limits throughput from the Flink-style time split. Rules, in order:
 * <ol>
 *   <li>the consumer hardly waits for data ({@link Bottleneck#consumerBound}), or the last stage waits for room most
 *   of its time (the consumer holds every batch buffer: a process beside the sink, as the PyTorch bridge's, whose own
 *   thread drains the sink at once) → the consumer is the bottleneck;</li>
 *   <li>the busiest stage (source included) is {@link Bottleneck#saturated} → it limits throughput;</li>
 *   <li>no stage is busy, tasks are short, hand-offs dominate → overhead;</li>
 *   <li>the CPUs are busy ({@link Bottleneck#cpuBound}) → the CPU, not a stage: more workers cannot help;</li>
 *   <li>the first stage idles on an empty input queue → the source starves the pipeline;</li>
 *   <li>otherwise the busiest stage is named as the likeliest, with its numbers.</li>
 * </ol>
 * Stages upstream of a saturated stage normally show back-pressure; the line says so, since that is
 * what users see first and misread as the problem.
 */
final class BottleneckAnalysis {
    /** The last stage blocked on its way to the consumer more than this share of its time: the consumer sets the pace. */
    static final double LAST_STAGE_BLOCKED = 0.5;

    private BottleneckAnalysis() { }

    /** The verdict without knowing the CPUs' use. */
    static Verdict judge(List<StageStats> stages, SinkStats sink) {
        return judge(stages, sink, CpuUse.UNKNOWN);
    }

    static Verdict judge(List<StageStats> stages, SinkStats sink, CpuUse cpu) {
        if (sink.delivered() < 2) {
            return new Verdict("", Verdict.State.WARMING_UP, "bottleneck: not known yet (warming up)");
        }
        if (Bottleneck.consumerBound(sink.consumerWaitShare())) {
            // Ready on most calls: the loader is ahead. Ready on few, yet hardly waiting: each batch came just as it
            // was asked for, which is keeping pace, not being ahead.
            return new Verdict("consumer", Verdict.State.CONSUMER_BOUND, String.format(Locale.ROOT,
                    "bottleneck: consumer (it waited for data %.0f%% of its time, data was ready for %.0f%% of next()"
                            + " calls; %s)", sink.consumerWaitShare() * 100, sink.dataReadiness() * 100,
                    sink.dataReadiness() >= 0.5 ? "the loader is ahead" : "the loader keeps pace, each batch just in time"));
        }
        StageStats last = stages.getLast();
        if (stages.size() > 1 && last.backPressuredFraction() > LAST_STAGE_BLOCKED) {
            return new Verdict("consumer", Verdict.State.CONSUMER_BOUND, String.format(Locale.ROOT,
                    "bottleneck: consumer (%s, the last stage, waited for room %.0f%% of its time: the consumer holds"
                            + " the batches; the loader is ahead)", last.name(), last.backPressuredFraction() * 100));
        }
        StageStats busiest = stages.getFirst();
        int busiestIndex = 0;
        for (int i = 0; i < stages.size(); i++) {
            if (stages.get(i).busyFraction() > busiest.busyFraction()) {
                busiest = stages.get(i);
                busiestIndex = i;
            }
        }
        if (Bottleneck.saturated(busiest.busyFraction())) {
            String line = String.format(Locale.ROOT, "bottleneck: %s (saturated: busy %.0f%% of %d worker%s%s)%s",
                    busiest.name(), busiest.busyFraction() * 100, busiest.concurrency(),
                    busiest.concurrency() == 1 ? "" : "s", queueNote(busiest), upstreamNote(stages, busiestIndex));
            return new Verdict(busiest.name(), Verdict.State.SATURATED, line);
        }
        if (busiest.busyFraction() < 0.2 && stages.stream().allMatch(s -> s.backPressuredFraction() + s.busyFraction() < 0.5)
                && stages.size() > 1 && stages.get(1).idleFraction() <= 0.5) {
            return new Verdict(busiest.name(), Verdict.State.OVERHEAD, String.format(Locale.ROOT,
                    "bottleneck: none of the stages is busy (busiest: %s at %.0f%%); tasks are so short that hand-offs between threads dominate",
                    busiest.name(), busiest.busyFraction() * 100));
        }
        if (Bottleneck.cpuBound(cpu.share())) {
            return new Verdict("cpu", Verdict.State.CPU_BOUND, String.format(Locale.ROOT,
                    "bottleneck: CPU (busy %.0f%% of the time%s; no stage saturated, the busiest %s at %.0f%% of %d"
                            + " worker%s: more workers cannot help, less work per clip or more cores can)",
                    cpu.share() * 100, whose(cpu),
                    busiest.name(), busiest.busyFraction() * 100, busiest.concurrency(),
                    busiest.concurrency() == 1 ? "" : "s"));
        }
        if (stages.size() > 1) {
            StageStats first = stages.get(1);
            if (first.idleFraction() > 0.5 && first.inputQueue().emptyFraction() > 0.5) {
                return new Verdict("source", Verdict.State.STARVED, String.format(Locale.ROOT,
                        "bottleneck: source (starved: %s idle %.0f%%, its input queue empty %.0f%% of the time)",
                        first.name(), first.idleFraction() * 100, first.inputQueue().emptyFraction() * 100));
            }
        }
        return new Verdict(busiest.name(), Verdict.State.BUSIEST, String.format(Locale.ROOT,
                "bottleneck: probably %s (busiest stage, busy %.0f%% of %d workers; none saturated: raise its concurrency)",
                busiest.name(), busiest.busyFraction() * 100, busiest.concurrency()));
    }

    /** This process's cores, and the machine's share where it is the busier one (other processes took the cores). */
    private static String whose(CpuUse cpu) {
        String process = Double.isNaN(cpu.processShare()) ? "" : String.format(Locale.ROOT,
                ": this process %.1f of its %d cores", cpu.processCores(), cpu.cores());
        boolean machine = cpu.machineShare() > cpu.processShare() || Double.isNaN(cpu.processShare());
        return process + (machine ? String.format(Locale.ROOT, "%s the machine %.0f%%", process.isEmpty() ? ":" : ",",
                cpu.machineShare() * 100) : "");
    }

    private static String queueNote(StageStats s) {
        QueueStats q = s.inputQueue();
        return q.capacity() == 0 ? "" : String.format(Locale.ROOT, ", input queue full %.0f%%", q.fullFraction() * 100);
    }

    private static String upstreamNote(List<StageStats> stages, int index) {
        if (index == 0) {
            return "";
        }
        StageStats before = stages.get(index - 1);
        return before.backPressuredFraction() > 0.3 ? String.format(Locale.ROOT,
                "; %s is blocked downstream %.0f%% of its time", before.name(), before.backPressuredFraction() * 100) : "";
    }
}
