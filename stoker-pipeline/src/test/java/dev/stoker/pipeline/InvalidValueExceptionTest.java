package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InvalidValueExceptionTest {

    @Test
    void theMessageIsNettysFormOfTheFields() {
        InvalidValueException e = new InvalidValueException("warmupSteps", -1, "0+");
        assertThat(e).hasMessage("warmupSteps: -1 (expected: 0+)").isInstanceOf(IllegalArgumentException.class);
        assertThat(e.name()).isEqualTo("warmupSteps");
    }

    @Test
    void asRenamesTheParameterAndKeepsTheRefusalAsItsCause() {
        InvalidValueException e = new InvalidValueException("warmupSteps", -1, "0+");
        InvalidValueException option = e.as("--warmup");
        assertThat(option).hasMessage("--warmup: -1 (expected: 0+)").hasCause(e);
        assertThat(option.name()).isEqualTo("--warmup");
    }
}
