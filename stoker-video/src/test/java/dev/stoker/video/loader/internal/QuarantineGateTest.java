package dev.stoker.video.loader.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.video.FailureReason;
import dev.stoker.pipeline.ThreadStates;
import dev.stoker.video.VideoException;
import dev.stoker.video.loader.Quarantine;
import java.nio.file.Path;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The gate's wait on a file in flight twice: a file never decoded waits for its earlier video (so a broken one is
 * counted once), a file decoded once does not (so a dataset smaller than what is in flight does not start every
 * epoch head-of-line blocked, as the 100-video demo did at 16 cores). Whether the source waits is read from its
 * thread's state ({@link ThreadStates}), not from a sleep.
 */
@Timeout(120)   // a hang guard: the gate itself gives up waiting after a minute
class QuarantineGateTest {
    private static final VideoEntry ENTRY =
            new VideoEntry(Path.of("/data/cls/a.mp4"), 0, "cls", OptionalDouble.empty(), OptionalDouble.empty());
    private static final String ADMIT = "QuarantineGate.admit";

    private static VideoTask inEpoch(int epoch) {
        return new VideoTask(ENTRY, 0, epoch, 0, 0);
    }

    /** The source asking the gate to admit {@code task}, on a thread of its own; its answer lands in {@code answer}. */
    private static Thread admitting(QuarantineGate gate, VideoTask task, AtomicReference<Boolean> answer) {
        return Thread.ofPlatform().name("source").start(() -> answer.set(gate.admit(task)));
    }

    @Test
    void aFileNeverDecodedWaitsForItsEarlierVideoToSettle() throws Exception {
        QuarantineGate gate = new QuarantineGate(Quarantine.inMemory(), QuarantineGate.Tracking.LOCAL_DECODE);
        assertThat(gate.admit(inEpoch(0))).isTrue();
        AtomicReference<Boolean> admitted = new AtomicReference<>();
        Thread source = admitting(gate, inEpoch(1), admitted);
        assertThat(ThreadStates.awaitBlockedIn(source, ADMIT)).as("the epoch-1 video waits while the epoch-0 one is in flight")
                .isTrue();
        gate.settled(inEpoch(0), null);
        source.join();
        assertThat(admitted.get()).isTrue();
    }

    @Test
    void aFileDecodedOnceGoesOnWithoutWaiting() throws Exception {
        QuarantineGate gate = new QuarantineGate(Quarantine.inMemory(), QuarantineGate.Tracking.LOCAL_DECODE);
        assertThat(gate.admit(inEpoch(0))).isTrue();
        gate.settled(inEpoch(0), null);
        assertThat(gate.admit(inEpoch(1))).isTrue();
        // Epoch 1's video is still in flight; the gate would wait on it (up to a minute) for a file never decoded.
        AtomicReference<Boolean> admitted = new AtomicReference<>();
        Thread source = admitting(gate, inEpoch(2), admitted);
        assertThat(ThreadStates.awaitBlockedIn(source, ADMIT)).as("the epoch-2 video waited").isFalse();
        assertThat(admitted.get()).isTrue();
    }

    @Test
    void aFileWhoseVideoFailedStillWaitsAndIsQuarantinedOnce() throws Exception {
        Quarantine quarantine = Quarantine.inMemory();
        QuarantineGate gate = new QuarantineGate(quarantine, QuarantineGate.Tracking.LOCAL_DECODE);
        assertThat(gate.admit(inEpoch(0))).isTrue();
        AtomicReference<Boolean> admitted = new AtomicReference<>();
        Thread source = admitting(gate, inEpoch(1), admitted);
        assertThat(ThreadStates.awaitBlockedIn(source, ADMIT)).as("the epoch-1 video waits").isTrue();
        gate.settled(inEpoch(0), new VideoException(ENTRY.path().toString(), VideoException.Operation.DECODE,
                FailureReason.CORRUPT, "invalid data"));
        source.join();
        assertThat(admitted.get()).as("admitted: quarantined, so skipped").isFalse();
        assertThat(gate.skipped()).isEqualTo(1);
    }
}
