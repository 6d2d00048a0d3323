package dev.stoker.loader.dataset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.dataset.internal.SampleDraw;
import dev.stoker.loader.dataset.internal.SampleGroups;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SamplerStateResumeTest {
    private static final SampleGroups SHARDS = EpochSamplerDeterminismTest.shards(9, 5);
    private static final SamplerOptions OPTIONS = new SamplerOptions(2, 1, 3, SamplerOptions.Tail.DROP);

    private static List<SampleDraw> take(EpochSampler sampler, SamplerState from, int count) {
        List<SampleDraw> out = new ArrayList<>();
        var source = sampler.source(from, -1);
        for (int k = 0; out.size() < count; k++) {
            for (SampleDraw d : source.epoch(k)) {
                if (out.size() == count) {
                    break;
                }
                out.add(d);
            }
        }
        return out;
    }

    @Test
    void aSamplerResumedFromAStateContinuesTheUninterruptedSequence(@TempDir Path dir) throws IOException {
        EpochSampler sampler = EpochSampler.create(SHARDS, 77, true, OPTIONS);
        List<SampleDraw> uninterrupted = take(sampler, sampler.start(), 50); // 15 per epoch: crosses 3 epochs
        for (int cut : new int[] {0, 1, 14, 15, 16, 37}) {
            SamplerState state = cut == 0 ? sampler.start() : sampler.stateAfter(uninterrupted.get(cut - 1));
            state.write(dir.resolve("state.json"));
            SamplerState loaded = SamplerState.read(dir.resolve("state.json"));
            assertThat(loaded).isEqualTo(state);
            EpochSampler resumed = EpochSampler.resume(EpochSamplerDeterminismTest.shards(9, 5), loaded);
            List<SampleDraw> rest = take(resumed, loaded, 50 - cut);
            List<SampleDraw> joined = new ArrayList<>(uninterrupted.subList(0, cut));
            joined.addAll(rest);
            assertThat(joined).as("cut after %d", cut).isEqualTo(uninterrupted);
        }
    }

    @Test
    void theEndOfAnEpochIsSavedAsTheStartOfTheNext() {
        EpochSampler sampler = EpochSampler.create(SHARDS, 77, true, OPTIONS);
        SamplerState state = sampler.stateAfter(sampler.draw(2, sampler.samplesPerEpoch() - 1));
        assertThat(state.epoch()).isEqualTo(3);
        assertThat(state.position()).isZero();
    }

    @Test
    void stateJsonNamesEveryInput() {
        SamplerState state = EpochSampler.create(SHARDS, 77, true, OPTIONS).state(4, 6, 1);
        String json = state.toJson();
        assertThat(json).contains("\"seed\" : 77", "\"epoch\" : 4", "\"position\" : 6", "\"clipsDelivered\" : 1",
                "\"rank\" : 1", "\"worldSize\" : 3", "\"windowGroups\" : 2", "\"tail\" : \"DROP\"",
                "\"samples\" : 45", "\"groups\" : 9");
        assertThat(SamplerState.fromJson(json)).isEqualTo(state);
    }

    @Test
    void aChangedDatasetIsRefusedWithBothFingerprints() {
        SamplerState state = EpochSampler.create(SHARDS, 77, true, OPTIONS).state(1, 3, 0);
        assertThatThrownBy(() -> EpochSampler.resume(EpochSamplerDeterminismTest.shards(9, 6), state))
                .isInstanceOfSatisfying(DatasetChangedException.class, e -> {
                    assertThat(e.actual().samples()).isEqualTo(54);
                    assertThat(e.actual()).isNotEqualTo(state.dataset());
                })
                .hasMessageContaining("dataset fingerprint: 54 samples in 9 groups")
                .hasMessageContaining("expected: 45 samples in 9 groups");
        // Same sample count, different shard sizes: still refused.
        int[] ids = new int[45];
        for (int i = 0; i < 45; i++) {
            ids[i] = i < 6 ? 0 : 1 + (i - 6) / 5;
        }
        assertThatThrownBy(() -> EpochSampler.resume(SampleGroups.of(ids), state))
                .isInstanceOf(DatasetChangedException.class).hasMessageContaining("dataset fingerprint");
    }

    @Test
    void differentSamplingSettingsAreNamed() {
        SamplerState state = EpochSampler.create(SHARDS, 77, true, OPTIONS).start();
        assertThatThrownBy(() -> EpochSampler.requireSameSettings(state, 78, true, OPTIONS.withRank(0, 3)))
                .hasMessageContaining("seed 78 (state: 77)")
                .hasMessageContaining("rank=0");
    }

    @Test
    void malformedStateJsonIsAClearError() {
        assertThatThrownBy(() -> SamplerState.fromJson("{\"seed\": 1}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sampler state");
    }
}
