package dev.stoker.pipeline.internal;

import dev.stoker.pipeline.ProcessStats;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How busy the CPUs were over a stretch of time: this process on the cores it may use (its CPU time over wall time
 * × {@link Runtime#availableProcessors()}, which a container's CPU limit lowers) and the whole machine ({@code
 * /proc/stat}'s busy ticks over all ticks, other processes included). Either one full leaves nothing for more workers.
 *
 * @param processShare this process's CPU time over its cores' time, 0..1; NaN when not known
 * @param machineShare the machine's busy share, 0..1; NaN when not known (not Linux, too short a stretch)
 * @param cores        the cores this process may use
 */
public record CpuUse(double processShare, double machineShare, int cores) {
    private static final Path PROC_STAT = Path.of("/proc/stat");
    /** Clock ticks (10 ms) below which the machine's share says too little. */
    private static final long MIN_TICKS = 20;

    /** Nothing known. */
    public static final CpuUse UNKNOWN = new CpuUse(Double.NaN, Double.NaN, 0);

    /** The busier of the two, 0..1; NaN when neither is known. */
    public double share() {
        if (Double.isNaN(processShare)) {
            return machineShare;
        }
        return Double.isNaN(machineShare) ? processShare : Math.max(processShare, machineShare);
    }

    /** Cores' worth of this process's CPU time. */
    public double processCores() {
        return processShare * cores;
    }

    /** Where a stretch starts; {@link Start#since} measures up to now. */
    public static Start start() {
        return new Start(System.nanoTime(), ProcessStats.cpuNanos(), machineTicks());
    }

    /** The clocks at a stretch's start. */
    public record Start(long wallNanos, long processCpuNanos, long[] machineTicks) {
        /** The CPUs' use from this start to now. */
        public CpuUse since() {
            int cores = Runtime.getRuntime().availableProcessors();
            long wall = System.nanoTime() - wallNanos;
            long cpu = ProcessStats.cpuNanos();
            double process = cpu < 0 || processCpuNanos < 0 || wall <= 0 ? Double.NaN
                    : Math.min(1, (double) (cpu - processCpuNanos) / ((double) wall * cores));
            long[] now = machineTicks();
            double machine = Double.NaN;
            if (now != null && machineTicks != null && now[1] - machineTicks[1] >= MIN_TICKS) {
                machine = (double) (now[0] - machineTicks[0]) / (now[1] - machineTicks[1]);
            }
            return new CpuUse(process, machine, cores);
        }
    }

    /** {busy, total} clock ticks of all CPUs from /proc/stat's first line; null when unreadable. */
    private static long[] machineTicks() {
        try (BufferedReader r = Files.newBufferedReader(PROC_STAT)) {
            String[] f = r.readLine().trim().split("\\s+");   // cpu user nice system idle iowait irq softirq steal ...
            long total = 0;
            long idle = 0;
            for (int i = 1; i < f.length && i <= 8; i++) {
                long ticks = Long.parseLong(f[i]);
                total += ticks;
                if (i == 4 || i == 5) {   // idle, iowait
                    idle += ticks;
                }
            }
            return new long[] {total - idle, total};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
