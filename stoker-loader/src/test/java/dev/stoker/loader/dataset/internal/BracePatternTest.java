package dev.stoker.loader.dataset.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** WebDataset's shard patterns expand as Python's braceexpand expands them. */
class BracePatternTest {

    @Test
    void rangesArePaddedWhenABoundIsAndGroupsMultiplyLeftToRight() {
        assertThat(BracePattern.expand("s/train-{000..003}.tar"))
                .containsExactly("s/train-000.tar", "s/train-001.tar", "s/train-002.tar", "s/train-003.tar");
        assertThat(BracePattern.expand("x{8..11}")).containsExactly("x8", "x9", "x10", "x11");
        assertThat(BracePattern.expand("x{3..1}")).as("descending").containsExactly("x3", "x2", "x1");
        assertThat(BracePattern.expand("{train,val}-{0..1}.tar"))
                .containsExactly("train-0.tar", "train-1.tar", "val-0.tar", "val-1.tar");
        assertThat(BracePattern.expand("plain.tar")).containsExactly("plain.tar");
        assertThat(BracePattern.isPattern("a-{0..1}.tar")).isTrue();
        assertThat(BracePattern.isPattern("a-}{.tar")).isFalse();
    }

    @Test
    void aGroupLeftOpenNestedOrNeitherARangeNorAListIsRefusedNamingThePattern() {
        assertThatThrownBy(() -> BracePattern.expand("a-{0..9.tar")).hasMessage("a-{0..9.tar: a { without its } (expected:"
                + " {0..9} or {a,b})");
        assertThatThrownBy(() -> BracePattern.expand("a-{0,{1,2}}.tar")).hasMessageContaining("nested braces");
        assertThatThrownBy(() -> BracePattern.expand("a-{x}.tar")).hasMessageContaining("{x} is neither a range");
        assertThatThrownBy(() -> BracePattern.expand("a-{0..9999999}.tar")).hasMessageContaining("more than 1000000");
        assertThatThrownBy(() -> BracePattern.expand("{0..999}{0..9999}")).hasMessageContaining("more than 1000000");
    }
}
