package dev.stoker.tune;

import dev.stoker.pipeline.PipelineConfig;
import dev.stoker.tune.SteadyStateModel.Steady;
import dev.stoker.tune.internal.AutotuneBudget;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * A pipeline the online tuner tunes on a {@link FakeClock}: its config, the steady state a config gives (a
 * {@link SteadyStateModel}), measured with a seeded noise, so that a run of the tuner over many windows takes
 * milliseconds and decides the same way every time. It closes the loop once its clock reaches {@code closeAtNanos}.
 */
final class ModelledPipeline extends ConfigOnlyPipeline {
    private final Function<PipelineConfig, Steady> model;
    private final SplittableRandom random;
    private final double sigma;
    private final AutotuneBudget budget;
    private long closeAtNanos = Long.MAX_VALUE;
    private AutotuneLoop loop;

    ModelledPipeline(Function<PipelineConfig, Steady> model, PipelineConfig start, AutotuneBudget budget, double sigma, long seed) {
        super(start);
        this.model = model;
        this.budget = budget;
        this.sigma = sigma;
        this.random = new SplittableRandom(seed);
    }

    /** The tuner's loop over this pipeline; it is closed once the clock has run {@code nanos} from now. */
    AutotuneLoop loop(long nanos) {
        closeAtNanos = clock.nanoTime() + nanos;
        loop = new AutotuneLoop(this, this, budget, clock);
        return loop;
    }

    @Override
    public MeasuredWindow measure(BooleanSupplier closed) {
        long windows = budget.probeWindows();
        long nanos = windows * budget.window().toNanos();
        if (clock.nanoTime() + nanos > closeAtNanos) {
            clock.parkNanos(Math.max(0, closeAtNanos - clock.nanoTime()));
            loop.close();
        }
        if (closed.getAsBoolean()) {
            return null;
        }
        clock.parkNanos(nanos);
        MeasuredWindow w = SteadyStateModel.window(model.apply(config), SteadyStateModel.noise(random, sigma), nanos / 1e9, windows);
        delivered += w.items();
        return w;
    }
}
