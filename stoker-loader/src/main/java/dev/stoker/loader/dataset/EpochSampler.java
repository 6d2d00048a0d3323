package dev.stoker.loader.dataset;

import dev.stoker.loader.dataset.internal.DatasetFingerprint;
import dev.stoker.loader.dataset.internal.SampleDraw;
import dev.stoker.loader.dataset.internal.SampleGroups;
import dev.stoker.loader.dataset.internal.SplitMix;
import dev.stoker.pipeline.EpochSource;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * The order a rank visits a dataset's samples in, epoch after epoch: a pure function of (seed, epoch,
 * dataset fingerprint, rank, world size, window, tail), so it is known ahead (for prefetching) and a
 * run resumed from a {@link SamplerState} sees exactly the sequence the uninterrupted run would have.
 *
 * <p>One epoch is laid out in three steps:
 * <ol>
 *   <li>shuffle the groups (shards, files);</li>
 *   <li>walk the shuffled groups in windows of {@link SamplerOptions#windowGroups()} consecutive groups and
 *       shuffle the samples inside each window, so that any stretch of the epoch reads from at most that
 *       many groups at once (page cache and mmap locality);</li>
 *   <li>cut the sequence into {@code worldSize} contiguous, equal blocks, rank {@code r} taking block
 *       {@code r}: ranks read disjoint stretches (so mostly disjoint shards); the remainder is dropped or
 *       padded by repeating from the start of the sequence ({@link SamplerOptions.Tail}).</li>
 * </ol>
 * Without shuffling the groups and samples keep dataset order. Every element carries a draw seed for
 * the random choices made when it is loaded (clip starts, crops), also a pure function.
 * Randomness comes from SplitMix64 written out here, not from a JDK generator, so states survive JDK
 * upgrades. Thread-safe.
 */
public final class EpochSampler {
    private static final long GROUP_STREAM = 0x67726F7570L;   // "group"
    private static final long WINDOW_STREAM = 0x77696E646FL;  // "windo"
    private static final long DRAW_STREAM = 0x64726177L;      // "draw"

    private final SampleGroups groups;
    private final long seed;
    private final boolean shuffle;
    private final SamplerOptions options;
    private final DatasetFingerprint fingerprint;
    private final int samplesPerEpoch;
    private int cachedEpoch = -1;
    private int[] cachedOrder;

    private EpochSampler(SampleGroups groups, long seed, boolean shuffle, SamplerOptions options) {
        this.groups = Objects.requireNonNull(groups, "groups");
        this.seed = seed;
        this.shuffle = shuffle;
        this.options = Objects.requireNonNull(options, "options");
        this.fingerprint = groups.fingerprint();
        int n = groups.size();
        int world = options.worldSize();
        this.samplesPerEpoch = options.tail() == SamplerOptions.Tail.DROP ? n / world : (n + world - 1) / world;
        if (samplesPerEpoch == 0) {
            throw new IllegalArgumentException("dataset: " + n + " samples for worldSize " + world + " with tail "
                    + options.tail() + " (expected: at least " + (options.tail() == SamplerOptions.Tail.DROP ? world : 1)
                    + " samples)");
        }
    }

    public static EpochSampler create(SampleGroups groups, long seed, boolean shuffle, SamplerOptions options) {
        return new EpochSampler(groups, seed, shuffle, options);
    }

    /**
     * The sampler a state was taken from, over {@code groups}.
     *
     * @throws DatasetChangedException if the dataset's fingerprint differs from the state's (the dataset changed:
     *         the order would not be the one the state was taken in)
     */
    public static EpochSampler resume(SampleGroups groups, SamplerState state) {
        DatasetFingerprint actual = groups.fingerprint();
        if (!actual.equals(state.dataset())) {
            throw new DatasetChangedException(actual, state.dataset());
        }
        EpochSampler sampler = new EpochSampler(groups, state.seed(), state.shuffle(), state.options());
        if (state.position() > sampler.samplesPerEpoch) {
            throw new IllegalArgumentException("position: " + state.position() + " (expected: 0.."
                    + sampler.samplesPerEpoch + " samples per epoch of rank " + state.rank() + ")");
        }
        return sampler;
    }

    /**
     * Checks that a state was taken by a sampler with this seed, shuffle and options, naming every
     * difference.
     */
    public static void requireSameSettings(SamplerState state, long seed, boolean shuffle, SamplerOptions options) {
        List<String> differences = new ArrayList<>();
        if (state.seed() != seed) {
            differences.add("seed " + seed + " (state: " + state.seed() + ")");
        }
        if (state.shuffle() != shuffle) {
            differences.add("shuffle " + shuffle + " (state: " + state.shuffle() + ")");
        }
        if (!state.options().equals(options)) {
            differences.add("sampler " + options + " (state: " + state.options() + ")");
        }
        if (!differences.isEmpty()) {
            throw new IllegalArgumentException("sampler settings differ from the saved state's: "
                    + String.join(", ", differences) + " (expected: the settings the state was taken with)");
        }
    }

    /** Samples this rank visits per epoch (the same on every rank). */
    public int samplesPerEpoch() { return samplesPerEpoch; }

    public DatasetFingerprint fingerprint() { return fingerprint; }

    public long seed() { return seed; }

    public boolean shuffle() { return shuffle; }

    public SamplerOptions options() { return options; }

    /** This rank's sample indices for {@code epoch}, in visiting order. */
    public int[] order(int epoch) {
        return cachedOrder(epoch).clone();
    }

    /** This rank's draws for {@code epoch}, in visiting order. */
    public List<SampleDraw> epoch(int epoch) {
        return epoch(epoch, 0);
    }

    /** This rank's draws for {@code epoch} from {@code fromPosition} on (a view; computed on access). */
    public List<SampleDraw> epoch(int epoch, int fromPosition) {
        if (fromPosition < 0 || fromPosition > samplesPerEpoch) {
            throw new IllegalArgumentException("fromPosition: " + fromPosition + " (expected: 0.." + samplesPerEpoch + ")");
        }
        int[] order = cachedOrder(epoch);
        final class Draws extends AbstractList<SampleDraw> implements RandomAccess {
            @Override
            public SampleDraw get(int i) {
                int position = fromPosition + Objects.checkIndex(i, size());
                return draw(epoch, position, order[position]);
            }

            @Override
            public int size() {
                return samplesPerEpoch - fromPosition;
            }
        }
        return new Draws();
    }

    /** The draw at {@code position} of {@code epoch}. */
    public SampleDraw draw(int epoch, int position) {
        Objects.checkIndex(position, samplesPerEpoch);
        return draw(epoch, position, cachedOrder(epoch)[position]);
    }

    private SampleDraw draw(int epoch, int position, int sample) {
        long global = (long) options.rank() * samplesPerEpoch + position;
        long pass = global / groups.size();
        return new SampleDraw(sample, epoch, position, drawSeed(seed, epoch, sample, pass));
    }

    /** The seed for sample {@code sample}'s draw in {@code epoch}, pass {@code pass} (0 unless padding). */
    public static long drawSeed(long seed, int epoch, int sample, long pass) {
        return SplitMix.mix(SplitMix.mix(SplitMix.mix(SplitMix.mix(seed, DRAW_STREAM), epoch), sample), pass);
    }

    /** The state at the start of epoch 0. */
    public SamplerState start() {
        return state(0, 0, 0);
    }

    /**
     * The state before {@code position} of {@code epoch}, with {@code clipsDelivered} clips of that sample
     * already out; the end of an epoch is given as the start of the next.
     */
    public SamplerState state(int epoch, int position, int clipsDelivered) {
        if (position < 0 || position > samplesPerEpoch) {
            throw new IllegalArgumentException("position: " + position + " (expected: 0.." + samplesPerEpoch + ")");
        }
        if (position == samplesPerEpoch) {
            epoch++;
            position = 0;
            clipsDelivered = 0;
        }
        return new SamplerState(SamplerState.VERSION, seed, shuffle, options.windowGroups(), options.rank(),
                options.worldSize(), options.tail(), fingerprint, epoch, position, clipsDelivered);
    }

    /** The state once {@code consumed} (and everything before it) has been delivered. */
    public SamplerState stateAfter(SampleDraw consumed) {
        return state(consumed.epoch(), consumed.position() + 1, 0);
    }

    /**
     * The draws from {@code from} on as a pipeline source: the source's epoch {@code k} is the sampler's
     * epoch {@code from.epoch() + k}, the first starting at {@code from.position()}; sampler epochs at or
     * past {@code endEpoch} end the stream ({@code -1}: endless).
     */
    public EpochSource<SampleDraw> source(SamplerState from, int endEpoch) {
        if (from.position() > samplesPerEpoch) {
            throw new IllegalArgumentException("position: " + from.position() + " (expected: 0.." + samplesPerEpoch + ")");
        }
        return k -> {
            int epoch = from.epoch() + k;
            if (endEpoch >= 0 && epoch >= endEpoch) {
                return null;
            }
            return epoch(epoch, k == 0 ? from.position() : 0);
        };
    }

    private synchronized int[] cachedOrder(int epoch) {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch: " + epoch + " (expected: 0+)");
        }
        if (epoch != cachedEpoch) {
            cachedOrder = computeOrder(epoch);
            cachedEpoch = epoch;
        }
        return cachedOrder;
    }

    private int[] computeOrder(int epoch) {
        int n = groups.size();
        int groupCount = groups.groupCount();
        int[] groupOrder = new int[groupCount];
        for (int g = 0; g < groupCount; g++) {
            groupOrder[g] = g;
        }
        long epochSeed = SplitMix.mix(seed, epoch);
        if (shuffle) {
            new SplitMix(SplitMix.mix(epochSeed, GROUP_STREAM)).shuffle(groupOrder, 0, groupCount);
        }
        int window = options.windowGroups() == 0 ? Math.max(1, groupCount) : options.windowGroups();
        int[] sequence = new int[n];
        int filled = 0;
        for (int w = 0, first = 0; first < groupCount; w++, first += window) {
            int windowStart = filled;
            for (int g = first; g < Math.min(groupCount, first + window); g++) {
                filled = groups.copyGroup(groupOrder[g], sequence, filled);
            }
            if (shuffle) {
                new SplitMix(SplitMix.mix(SplitMix.mix(epochSeed, WINDOW_STREAM), w)).shuffle(sequence, windowStart, filled);
            }
        }
        int[] rankOrder = new int[samplesPerEpoch];
        long base = (long) options.rank() * samplesPerEpoch;
        for (int p = 0; p < samplesPerEpoch; p++) {
            rankOrder[p] = sequence[(int) ((base + p) % n)];
        }
        return rankOrder;
    }

    @Override
    public String toString() {
        return "EpochSampler[seed=" + seed + ", shuffle=" + shuffle + ", " + options + ", dataset=" + fingerprint
                + ", samplesPerEpoch=" + samplesPerEpoch + "]";
    }
}
