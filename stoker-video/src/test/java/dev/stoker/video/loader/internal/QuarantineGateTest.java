package dev.stoker.video.loader.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.video.FailureReason;
import dev.stoker.video.VideoException;
import dev.stoker.video.loader.Quarantine;
import dev.stoker.video.loader.VideoTask;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalDouble;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The gate's wait on a file in flight twice: a file never decoded waits for its earlier video (so a broken one is
 * counted once), a file decoded once does not (so a dataset smaller than what is in flight does not start every
 * epoch head-of-line blocked, as the 100-video demo did at 16 cores).
 */
class QuarantineGateTest {
    private static final VideoEntry ENTRY =
            new VideoEntry(Path.of("/data/cls/a.mp4"), 0, "cls", OptionalDouble.empty(), OptionalDouble.empty());

    private static VideoTask inEpoch(int epoch) {
        return new VideoTask(ENTRY, 0, epoch, 0, 0);
    }

    @Test
    void aFileNeverDecodedWaitsForItsEarlierVideoToSettle() throws Exception {
        QuarantineGate gate = new QuarantineGate(Quarantine.inMemory(), QuarantineGate.Tracking.LOCAL_DECODE);
        assertThat(gate.admit(inEpoch(0))).isTrue();
        CompletableFuture<Boolean> next = CompletableFuture.supplyAsync(() -> gate.admit(inEpoch(1)));
        Thread.sleep(300);
        assertThat(next).as("the epoch-1 video, while the epoch-0 one is in flight").isNotDone();
        gate.settled(inEpoch(0), null);
        assertThat(next.get(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aFileDecodedOnceGoesOnWithoutWaiting() {
        QuarantineGate gate = new QuarantineGate(Quarantine.inMemory(), QuarantineGate.Tracking.LOCAL_DECODE);
        assertThat(gate.admit(inEpoch(0))).isTrue();
        gate.settled(inEpoch(0), null);
        assertThat(gate.admit(inEpoch(1))).isTrue();
        // Epoch 1's video is still in flight; the gate would wait on it (up to a minute) for a file never decoded.
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> assertThat(gate.admit(inEpoch(2))).isTrue());
    }

    @Test
    void aFileWhoseVideoFailedStillWaitsAndIsQuarantinedOnce() throws Exception {
        Quarantine quarantine = Quarantine.inMemory();
        QuarantineGate gate = new QuarantineGate(quarantine, QuarantineGate.Tracking.LOCAL_DECODE);
        assertThat(gate.admit(inEpoch(0))).isTrue();
        CompletableFuture<Boolean> next = CompletableFuture.supplyAsync(() -> gate.admit(inEpoch(1)));
        Thread.sleep(300);
        assertThat(next).isNotDone();
        gate.settled(inEpoch(0), new VideoException(ENTRY.path().toString(), VideoException.Operation.DECODE,
                FailureReason.CORRUPT, "invalid data"));
        assertThat(next.get(5, TimeUnit.SECONDS)).as("admitted: quarantined, so skipped").isFalse();
        assertThat(gate.skipped()).isEqualTo(1);
    }
}
