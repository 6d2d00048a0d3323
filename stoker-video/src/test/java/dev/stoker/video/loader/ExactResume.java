package dev.stoker.video.loader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.HostBatchLoader;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.dataset.SamplerState;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;


/**
 * The exact-resume check every host loader passes (the video loader here, the shard loader in stoker-store): stopped
 * after any batch and resumed from its saved state, it delivers the rest of the uninterrupted run, batch for batch.
 */
public final class ExactResume {
    private ExactResume() {
    }

    /** Batches as text until the loader ends or {@code limit} batches; the state after the last one. */
    public record Run(List<String> batches, SamplerState state) {
    }

    /** Runs {@code loader} for at most {@code limit} batches, then closes it. */
    public static Run run(HostBatchLoader loader, int limit) {
        List<String> batches = new ArrayList<>();
        try (loader) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    batches.add(BatchText.of(batch));
                }
                if (batches.size() == limit) {
                    break;
                }
            }
            return new Run(batches, loader.state());
        }
    }

    /**
     * Checks that a loader {@code fresh} opens, stopped after each of {@code cuts} batches and resumed by
     * {@code resumed} from its state (saved as JSON and read back, as a trainer's checkpoint is), delivers the
     * batches of the uninterrupted run, all of them different.
     */
    public static void assertResumesExactly(Supplier<HostBatchLoader> fresh,
            Function<SamplerState, HostBatchLoader> resumed, int... cuts) {
        Run whole = run(fresh.get(), Integer.MAX_VALUE);
        assertThat(new HashSet<>(whole.batches())).as("batches differ from each other").hasSameSizeAs(whole.batches());
        for (int cut : cuts) {
            Run first = run(fresh.get(), cut);
            assertThat(first.batches()).isEqualTo(whole.batches().subList(0, cut));
            SamplerState saved = SamplerState.fromJson(first.state().toJson());
            Run rest = run(resumed.apply(saved), Integer.MAX_VALUE);
            List<String> joined = new ArrayList<>(first.batches());
            joined.addAll(rest.batches());
            assertThat(joined).as("stopped after %d batches, resumed from %s", cut, saved).isEqualTo(whole.batches());
        }
    }
}
