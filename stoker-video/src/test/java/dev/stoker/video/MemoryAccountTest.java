package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.batch.BatchPool;
import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.pipeline.MemoryAccount.Kind;
import dev.stoker.pipeline.MemoryAccount;
import dev.stoker.pipeline.ProcessStats;
import org.junit.jupiter.api.Test;

/**
 * What the stoker-video module allocates off the heap shows in the {@link MemoryAccount}, and so in the off-heap
 * figure of {@link ProcessStats} (the dashboard's tile, {@code --json}, the bridge's {@code stats()}): a batch
 * pool's buffers while the pool is open, a video's demuxed packets while it is open; and goes when they close.
 */
class MemoryAccountTest {

    @Test
    void aBatchPoolsBuffersAreAccountedUntilThePoolCloses() throws InterruptedException {
        BatchShape shape = BatchShape.rgb(2, 4, 64, 64);
        long before = MemoryAccount.bytes(Kind.POOLED_BUFFERS);
        long offheapBefore = ProcessStats.read().offheapBytes();
        try (BatchPool pool = new BatchPool(shape, shape.batchBytes() * 4)) {
            ClipBatch first = pool.acquire();
            ClipBatch second = pool.acquire();
            assertThat(MemoryAccount.bytes(Kind.POOLED_BUFFERS) - before).isEqualTo(2 * shape.batchBytes());
            ProcessStats now = ProcessStats.read();
            assertThat(now.offheapBytes() - offheapBefore).isGreaterThanOrEqualTo(2 * shape.batchBytes());
            assertThat(now.memoryBytes()).containsKey("pooled_buffers").containsKey("device");
            first.close();
            second.close();
            // Reused, not freed: a pool keeps its buffers until it closes.
            assertThat(MemoryAccount.bytes(Kind.POOLED_BUFFERS) - before).isEqualTo(2 * shape.batchBytes());
        }
        assertThat(MemoryAccount.bytes(Kind.POOLED_BUFFERS)).isEqualTo(before);
    }

    @Test
    void aVideosPacketsAreAccountedWhileItIsOpen() {
        long before = MemoryAccount.bytes(Kind.PACKET_BUFFERS);
        try (Video video = Video.open(SampleVideos.file("libwebm_bbb_480p_vp9_opus_1s.webm"))) {
            assertThat(video.frameCount()).isPositive();
            assertThat(MemoryAccount.bytes(Kind.PACKET_BUFFERS) - before).isPositive();
        }
        assertThat(MemoryAccount.bytes(Kind.PACKET_BUFFERS)).isEqualTo(before);
    }
}
