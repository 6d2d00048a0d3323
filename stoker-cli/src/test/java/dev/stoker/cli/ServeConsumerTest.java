package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which process {@code stoker serve} outlives no longer: the one the bridge names, while it lives and is older than
 * this JVM; else the parent.
 */
class ServeConsumerTest {
    @Test
    void withoutANameTheConsumerIsTheParent() {
        assertThat(ServeConsumer.of(null)).isEqualTo(ProcessHandle.current().parent());
    }

    @Test
    void aNamedLiveOlderProcessIsTheConsumer() {
        long parent = ProcessHandle.current().parent().orElseThrow().pid();
        assertThat(ServeConsumer.of(" " + parent + "\n")).map(ProcessHandle::pid).contains(parent);
    }

    @Test
    void aNamedProcessThatIsGoneOrYoungerThanThisJvmIsNone() throws Exception {
        Process child = new ProcessBuilder("sleep", "30").start();
        try {
            // Started after this JVM: were it the pid of a dead consumer, reused, it would never be this JVM's consumer.
            assertThat(ServeConsumer.of(Long.toString(child.pid()))).isEmpty();
        } finally {
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(ServeConsumer.of(Long.toString(child.pid()))).as("gone").isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "python | STOKER_CONSUMER_PID: \"python\" (expected: a process id)",
            "0      | STOKER_CONSUMER_PID: 0 (expected: a process id, 1+)"})
    void aValueThatIsNoPidIsNamed(String value, String message) {
        assertThatThrownBy(() -> ServeConsumer.of(value)).hasMessage(message);
    }
}
