package dev.stoker.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The short form of a failure budget, {@code RATE[@MIN_ITEMS]}, as the command line and the options' JSON take it. */
class FailureBudgetParseTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            0        | 0  | 1.0 | 0
            1        | -1 | 1.0 | 0
            0.3      | -1 | 0.3 | 50
            0.3@100  | -1 | 0.3 | 100
            ' 0.25@0'| -1 | 0.25| 0
            0@10     | -1 | 0.0 | 10
            """)
    void theShortFormGivesItsBudget(String text, long maxFailures, double maxFailureRate, long warmupItems) {
        assertThat(FailureBudget.parse(text)).isEqualTo(new FailureBudget(maxFailures, maxFailureRate, warmupItems));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "2", "-0.1", "0.3@", "0.3@-1", "abc", "0.3@1.5"})
    void anythingElseIsRefusedNamingTheValueAndTheForm(String text) {
        assertThatThrownBy(() -> FailureBudget.parse(text))
                .isInstanceOfSatisfying(InvalidValueException.class, e -> assertThat(e.name()).isEqualTo("failureBudget"))
                .hasMessageStartingWith("failureBudget: '" + text + "' (expected: RATE[@MIN_ITEMS]");
    }
}
