package dev.stoker.pipeline.subprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.StageFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An output too large for the results ring (a demuxed video longer than the ring) fails that item, named,
 * within the failure budget; the items around it are delivered and the run goes on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public class SubprocessOversizedOutputTest {

    /** "N" into N zero bytes (a small item in, a large one out, as demux turns a path into packets). */
    public static final class Inflate implements StageFactory<String, byte[]> {
        @Override
        public Function<String, byte[]> create(String config) {
            return s -> new byte[Integer.parseInt(s)];
        }
    }

    @Test
    void anOutputLargerThanTheRingFailsItsItemAndTheRunGoesOn() {
        List<String> source = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            source.add(String.valueOf(i == 7 ? 256 << 10 : 1000 + i));
        }
        List<Integer> sizes = new ArrayList<>();
        try (Pipeline<byte[]> p = Pipeline.from(source)
                .map("inflate", Inflate.class, "", s -> s.failureBudget(FailureBudget.count(3)))
                .isolate(ChildJvm.options(ItemCodecs.STRING, ItemCodecs.BYTES).ringBytes(128 << 10)).build()) {
            for (byte[] b : p) {
                sizes.add(b.length);
            }
            List<Failure> failures = p.failures();
            assertThat(failures).hasSize(1);
            assertThat(failures.getFirst().reason()).isEqualTo("too large for the ring");
            assertThat(failures.getFirst().item()).isEqualTo("262144");
            assertThat(failures.getFirst().cause()).hasMessageContaining("262144 bytes")
                    .hasMessageContaining("raise SubprocessOptions.ringBytes");
        }
        assertThat(sizes).hasSize(19).doesNotContain(256 << 10);
    }
}
