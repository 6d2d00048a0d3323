package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --size S|WxH}, one parser for bench, clip and ingest: a half-written size is refused naming the flag (Java's
 * split dropped the empty height of {@code 11x}, which then read as a square), and so is a side of 0.
 */
class SizeArgumentTest {
    @Test
    void oneSideOrWidthAndHeight() {
        assertThat(SizeArgument.parse("112")).isEqualTo(new SizeArgument(112, 112, true));
        assertThat(SizeArgument.parse("160X120")).isEqualTo(new SizeArgument(160, 120, false));
    }

    @ParameterizedTest
    @ValueSource(strings = {"11x", "x11", "0", "11x0", "1x2x3", "abc", "", "-5"})
    void aHalfWrittenOrEmptySizeIsRefusedNamingTheFlag(String text) {
        assertThatThrownBy(() -> SizeArgument.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--size: " + text + " (expected: S or WxH, each 1 or more, e.g. 112 or 160x120)");
    }

    @Test
    void everyCommandRefusesIt() {
        for (String[] args : new String[][] {{"options", "--size", "11x"}, {"clip", "v.mp4", "--out", "out", "--size", "64x"},
                {"ingest", "src", "dest", "--size", "64x"}}) {
            CliRun run = CliRun.stoker(args);
            assertThat(run.exitCode()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(run.err()).contains("--size: ").contains("(expected: S or WxH");
        }
    }
}
