package dev.stoker.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.dataset.SamplerOptions;
import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.pipeline.FailureBudgetExceededException;
import dev.stoker.store.internal.SampleInfo;
import dev.stoker.store.loader.ReadAhead;
import dev.stoker.store.loader.ShardLoader;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard whose records cannot be read (deleted, truncated) under an endless run with reading ahead on: the loader
 * opens, delivers the readable records and reports each damaged one as a failure naming shard and record, counted
 * against the failure budget; with every record damaged the run ends in the budget's error. Reading ahead passed over
 * records it could not size without bound, so such a run spun at open forever.
 */
class ShardReadAheadDamageTest {
    /** A hang guard only (a regression spins without end, which {@code @Timeout} cannot interrupt); no timing is asserted. */
    private static final Duration HANG_GUARD = Duration.ofSeconds(120);

    @TempDir
    Path dest;

    private static LoaderOptions endless(FailureBudget budget) {
        return LoaderOptions.builder().clip(8, 2).order(3, true, -1).batch(2, false, BatchLayout.NTHWC)
                .sampler(SamplerOptions.defaults().withWindow(2)).failureBudget(budget).build();
    }

    @Test
    void aDeletedShardsRecordsAreReportedAndTheOthersDelivered() throws IOException {
        DemoSource.ingest(dest, IngestOptions.Format.JPEG);
        List<SampleInfo> samples = samples();
        String deleted = samples.getFirst().shard();
        Set<Path> readable = samples.stream().filter(s -> !s.shard().equals(deleted))
                .map(s -> s.sourcePath().toAbsolutePath().normalize()).collect(Collectors.toSet());
        assertThat(readable).as("samples in other shards").isNotEmpty();
        Files.delete(dest.resolve(deleted));

        assertTimeoutPreemptively(HANG_GUARD, () -> {
            try (ShardDataset shards = ShardDataset.open(dest);
                 ShardLoader loader = ShardLoader.open(shards, endless(FailureBudget.UNLIMITED),
                         Opening.defaults().with(ReadAhead.defaults()))) {
                Iterator<ClipBatch> it = loader.iterator();
                for (int b = 0; b < 6; b++) {
                    assertThat(it.hasNext()).isTrue();
                    try (ClipBatch batch = it.next()) {
                        for (ClipInfo clip : batch.clips()) {
                            assertThat(clip.path().toAbsolutePath().normalize()).isIn(readable);
                        }
                    }
                }
                List<Failure> failures = loader.pipeline().failures();
                assertThat(failures).isNotEmpty().allSatisfy(f -> {
                    assertThat(f.reason()).startsWith("shard-");
                    assertThat(f.cause().getMessage()).contains(deleted).contains("record").contains("missing");
                });
            }
        });
    }

    @Test
    void everyRecordTruncatedEndsTheRunWithTheBudgetsErrorNamingTheDamage() throws IOException {
        DemoSource.ingest(dest, IngestOptions.Format.JPEG);
        Set<String> shardNames = samples().stream().map(SampleInfo::shard).collect(Collectors.toSet());
        for (String shard : shardNames) {
            try (RandomAccessFile file = new RandomAccessFile(dest.resolve(shard).toFile(), "rw")) {
                file.setLength(file.length() / 2); // the footer and index go, and half the records
            }
        }
        for (FailureBudget budget : List.of(FailureBudget.count(0), FailureBudget.DEFAULT_STAGE)) {
            assertTimeoutPreemptively(HANG_GUARD, () -> {
                try (ShardDataset shards = ShardDataset.open(dest);
                     ShardLoader loader = ShardLoader.open(shards, endless(budget),
                             Opening.defaults().with(ReadAhead.defaults()))) {
                    Iterator<ClipBatch> it = loader.iterator();
                    assertThatThrownBy(() -> {
                        while (it.hasNext()) {
                            it.next().close();
                        }
                    }).as("budget %s", budget).isInstanceOf(FailureBudgetExceededException.class)
                            .hasMessageContaining(".stk").hasMessageContaining("record");
                    assertThat(loader.pipeline().failures()).isNotEmpty().allSatisfy(f -> {
                        assertThat(f.reason()).startsWith("shard-");
                        assertThat(shardNames).anySatisfy(s -> assertThat(f.cause().getMessage()).contains(s));
                    });
                }
            }, "budget " + budget);
        }
    }

    private List<SampleInfo> samples() throws IOException {
        try (ShardDataset shards = ShardDataset.open(dest)) {
            return shards.samples();
        }
    }
}
