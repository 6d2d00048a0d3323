package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/** The commands' JSON: a figure a run could not measure is null, a number's place never holds a string. */
class OutputFilesTest {
    record Figures(double measured, double unmeasured, Double boxed, double unbounded) {
    }

    @Test
    void aFigureThatIsNotFiniteIsNull() throws Exception {
        Figures figures = new Figures(1.5, Double.NaN, Double.NaN, Double.POSITIVE_INFINITY);
        JsonNode written = OutputFiles.JSON.readTree(OutputFiles.JSON.writeValueAsString(figures));
        assertThat(written.get("measured").isNumber()).isTrue();
        assertThat(written.get("measured").asDouble()).isEqualTo(1.5);
        assertThat(written.get("unmeasured").isNull()).isTrue();
        assertThat(written.get("boxed").isNull()).isTrue();
        assertThat(written.get("unbounded").isNull()).isTrue();
        assertThat(OutputFiles.JSON.valueToTree(figures).get("unmeasured").isNull()).as("the report's tree").isTrue();
    }
}
