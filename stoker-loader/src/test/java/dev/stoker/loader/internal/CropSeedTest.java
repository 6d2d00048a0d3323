package dev.stoker.loader.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.LoaderOptions;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A clip's framing seed is its own: no two (epoch, video, clip) of a loader share one, so no two clips are framed alike
 * by construction (a sum such as {@code video * 31 + clip} made the 31st clip of a video the next video's first), and a
 * seed is a pure function of its inputs, which the shard and video loaders rely on to frame a clip alike.
 */
class CropSeedTest {
    @Test
    void everyEpochVideoAndClipHasASeedOfItsOwnAndTheSameOneEachTime() {
        LoaderOptions options = LoaderOptions.builder().order(7, true, 1).build();
        Set<Long> seeds = new HashSet<>();
        int drawn = 0;
        for (int epoch = 0; epoch < 4; epoch++) {
            for (int video = 0; video < 2_000; video++) {
                for (int clip = 0; clip < 40; clip++) {
                    seeds.add(LoaderFront.cropSeed(options, epoch, video, clip));
                    drawn++;
                }
            }
        }
        assertThat(seeds).hasSize(drawn);
        assertThat(LoaderFront.cropSeed(options, 1, 5, 31)).isNotEqualTo(LoaderFront.cropSeed(options, 1, 6, 0))
                .isEqualTo(LoaderFront.cropSeed(options, 1, 5, 31));
        LoaderOptions other = LoaderOptions.builder().order(8, true, 1).build();
        assertThat(LoaderFront.cropSeed(other, 1, 5, 31)).isNotEqualTo(LoaderFront.cropSeed(options, 1, 5, 31));
    }
}
