package dev.stoker.loader.clip;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.LoaderOptions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * {@link Resize#framing()}: what a clip's seed draws (crop position, jittered short side, mirror), the one draw every
 * path frames a clip by; and {@link Resize#mirrorRows}, what a mirrored clip's pixels are.
 */
class ResizeFramingTest {

    @Test
    void withoutAugmentationsACentreCropIsCentredAndARandomCropKeepsItsDraw() {
        assertThat(Resize.centerCrop(128, 112, 112).framing()).isEqualTo(new Resize.Framing(0.5, 0.5, 128, false));
        assertThat(Resize.stretch(40, 30).framing().mirrored()).isFalse();
        Resize.Framing random = Resize.randomCrop(128, 112, 112, 42).framing();
        assertThat(random).isEqualTo(Resize.randomCrop(128, 112, 112, 42).framing());
        assertThat(random.shortSide()).isEqualTo(128);
        assertThat(random.cropX()).isNotEqualTo(0.5);
        // Augmentations draw after the crop position: adding them moves no crop.
        for (long seed = 0; seed < 50; seed++) {
            Resize.Framing plain = Resize.randomCrop(128, 112, 112, seed).framing();
            Resize.Framing augmented = Resize.randomCrop(128, 112, 112, seed).augmented(seed, 160, true).framing();
            assertThat(augmented.cropX()).isEqualTo(plain.cropX());
            assertThat(augmented.cropY()).isEqualTo(plain.cropY());
        }
    }

    @Test
    void jitterDrawsEveryShortSideInItsRangeAndFlipsMirrorAboutHalfTheClips() {
        List<Resize.Framing> framings = LongStream.range(0, 2000)
                .mapToObj(seed -> Resize.centerCrop(128, 112, 112).augmented(seed * 0x9E3779B97F4A7C15L, 160, true).framing())
                .toList();
        assertThat(framings).allSatisfy(f -> {
            assertThat(f.shortSide()).isBetween(128, 160);
            assertThat(f.cropX()).isEqualTo(0.5);
        });
        assertThat(framings.stream().mapToInt(Resize.Framing::shortSide).distinct().count()).isEqualTo(33);
        // 2000 fixed seeds: a fixed count, well inside 1000 +- 4.5 sigma (sigma ~22).
        assertThat(framings.stream().filter(Resize.Framing::mirrored).count()).isBetween(900L, 1100L);
        // A seed draws the same framing every time (exact resume, shards equal to files).
        assertThat(Resize.centerCrop(128, 112, 112).augmented(99, 160, true).framing())
                .isEqualTo(Resize.centerCrop(128, 112, 112).augmented(99, 160, true).framing());
    }

    @Test
    void aRandomResizedCropDrawsItsAreaUniformlyAndItsAspectLogUniformlyInTheirRanges() {
        List<Resize.Framing> framings = LongStream.range(0, 2000)
                .mapToObj(seed -> Resize.randomResizedCrop(112, 112, 0.25, seed * 0x9E3779B97F4A7C15L).framing()).toList();
        assertThat(framings).allSatisfy(f -> {
            assertThat(f.area()).isBetween(0.25, 1.0);
            assertThat(f.aspect()).isBetween(Resize.ASPECT_MIN, Resize.ASPECT_MAX);
            assertThat(f.mirrored()).isFalse();
        });
        // Fixed seeds: fixed counts. A quarter of [0.25, 1] lies below 0.4375; half the log range below aspect 1.
        assertThat(framings.stream().filter(f -> f.area() < 0.4375).count()).isBetween(440L, 560L);
        assertThat(framings.stream().filter(f -> f.aspect() < 1).count()).isBetween(900L, 1100L);
        assertThat(Resize.randomResizedCrop(112, 112, 1, 5).framing().area()).isEqualTo(1.0);
        assertThat(Resize.randomResizedCrop(112, 112, 0.25, 5).augmented(5, 0, true).framing().area())
                .as("flips draw after the cut").isEqualTo(Resize.randomResizedCrop(112, 112, 0.25, 5).framing().area());
    }

    @Test
    void aRandomResizedCropsCutCoversItsAreaAtItsAspectOrShrinksToFit() {
        Resize resize = Resize.randomResizedCrop(64, 64, 0.08, 1);
        // A quarter of 400x300 at aspect 4/3: 200x150, placed by the crop position.
        assertThat(resize.sourceWindow(0, 400, 300, new Resize.Framing(0, 1, 0, false, 0.25, 4.0 / 3), 64, 64, 0, 0))
                .isEqualTo(new Resize.Window(0, 150, 200, 150));
        // All of a 400x300 picture at aspect 3/4 would be 300x400: shrunk, aspect kept, to 225x300, centred.
        assertThat(resize.sourceWindow(0, 400, 300, new Resize.Framing(0.5, 0.5, 0, false, 1, 0.75), 64, 64, 0, 0))
                .isEqualTo(new Resize.Window(88, 0, 225, 300));
        // Turned 90 degrees: the cut is of the displayed picture, in coded pixels.
        assertThat(resize.sourceWindow(90, 300, 400, new Resize.Framing(0, 1, 0, false, 0.25, 4.0 / 3), 64, 64, 0, 0))
                .isEqualTo(new Resize.Window(150, 200, 150, 200));
        assertThatThrownBy(() -> Resize.randomResizedCrop(64, 64, 0, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("areaMin: 0.0 with RANDOM_RESIZED_CROP (expected: above 0, at most 1)");
        assertThatThrownBy(() -> Resize.randomResizedCrop(64, 64, 0.5, 1).augmented(1, 80, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("shortSideMax: 80 with RANDOM_RESIZED_CROP (expected: 0; scale jitter needs a crop mode)");
    }

    @Test
    void aShortSideMaxBelowTheShortSideOrWithoutACropIsRefused() {
        assertThatThrownBy(() -> Resize.centerCrop(128, 112, 112).augmented(1, 120, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("shortSideMax: 120 with SHORT_SIDE_CENTER_CROP and short side 128 (expected: 0 for no jitter,"
                        + " or 128+)");
        assertThatThrownBy(() -> Resize.stretch(40, 30).augmented(1, 60, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("shortSideMax: 60 with STRETCH (expected: 0; scale jitter needs a crop mode)");
        assertThat(Resize.stretch(40, 30).augmented(1, 0, true).flip()).isTrue();
    }

    @Test
    void spatialCropsArePlacedNotDrawnAndKeepTheCentreCropsJitterAndMirror() {
        Resize centre = Resize.centerCrop(112, 112, 112).augmented(21, 160, true);
        for (int crop = 0; crop < 3; crop++) {
            Resize.Framing framing = centre.spatialCrop(crop, 3).framing();
            assertThat(framing.cropX()).isEqualTo(crop / 2.0);
            assertThat(framing.cropY()).isEqualTo(0.5);
            assertThat(framing.alongLongSide()).isTrue();
            // The seed's draws are the centre crop's: a clip's three crops share its scale and its mirror.
            assertThat(framing.shortSide()).isEqualTo(centre.framing().shortSide());
            assertThat(framing.mirrored()).isEqualTo(centre.framing().mirrored());
        }
        // LoaderOptions lays a video's clips out as each start's crops in a row: the ordinal picks the crop.
        LoaderOptions.Size size = new LoaderOptions.Size(112, 112, Resize.Mode.SHORT_SIDE_CENTER_CROP, 128, 0, false,
                LoaderOptions.Size.DEFAULT_AREA_MIN, 3);
        assertThat(size.cropsOf(new double[] {0.5, 2.0})).containsExactly(0.5, 0.5, 0.5, 2.0, 2.0, 2.0);
        assertThat(size.cropsOf(new int[] {4, 0})).containsExactly(4, 4, 4, 0, 0, 0);
        assertThat(IntStream.range(0, 6).mapToObj(i -> size.resize(9, i).spatialCrop()).toList())
                .containsExactly(0, 1, 2, 0, 1, 2);
    }

    @Test
    void spatialCropsOtherThanOneNeedACentreCropAndAnIndexInRange() {
        assertThatThrownBy(() -> Resize.randomCrop(112, 112, 112, 1).spatialCrop(0, 3))
                .hasMessage("spatialCrops: 3 with SHORT_SIDE_RANDOM_CROP (expected: 1; spatial crops are centre crops moved"
                        + " along the long side)");
        assertThatThrownBy(() -> Resize.centerCrop(112, 112, 112).spatialCrop(3, 3))
                .hasMessage("spatialCrop: 3 (expected: 0 to 2)");
        assertThatThrownBy(() -> new LoaderOptions.Size(112, 112, Resize.Mode.SHORT_SIDE_CENTER_CROP, 0, 0, false,
                LoaderOptions.Size.DEFAULT_AREA_MIN, 11)).hasMessage("spatialCrops: 11 (expected: 1 to 10)");
        assertThatThrownBy(() -> new LoaderOptions.Size(112, 112, Resize.Mode.STRETCH, 0, 0, false,
                LoaderOptions.Size.DEFAULT_AREA_MIN, 2)).hasMessage("spatialCrops: 2 with resize mode STRETCH (expected: 1;"
                        + " spatial crops are centre crops moved along the long side)");
    }

    @Test
    void mirrorRowsReversesThePixelsOfEachRowAndKeepsTheirChannels() {
        try (Arena arena = Arena.ofConfined()) {
            // Two frames of 3x2, then a byte that is not theirs.
            byte[] pixels = {
                    1, 2, 3, 4, 5, 6, 7, 8, 9,
                    10, 11, 12, 13, 14, 15, 16, 17, 18,
                    19, 20, 21, 22, 23, 24, 25, 26, 27,
                    28, 29, 30, 31, 32, 33, 34, 35, 36,
                    99};
            byte[] mirrored = {
                    7, 8, 9, 4, 5, 6, 1, 2, 3,
                    16, 17, 18, 13, 14, 15, 10, 11, 12,
                    25, 26, 27, 22, 23, 24, 19, 20, 21,
                    34, 35, 36, 31, 32, 33, 28, 29, 30,
                    99};
            MemorySegment segment = arena.allocate(pixels.length + 5);
            MemorySegment.copy(pixels, 0, segment, ValueLayout.JAVA_BYTE, 5, pixels.length);
            Resize.mirrorRows(segment, 5, 9, segment, 5, 3, 4, new byte[10]);
            assertThat(segment.asSlice(5).toArray(ValueLayout.JAVA_BYTE)).containsExactly(mirrored);

            // From wider rows (a crop of 2 of 3 pixels, from the second): rows packed in the destination.
            MemorySegment source = MemorySegment.ofArray(pixels);
            MemorySegment cut = arena.allocate(13);
            cut.set(ValueLayout.JAVA_BYTE, 12, (byte) 99);
            Resize.mirrorRows(source, 3, 9, cut, 0, 2, 2, new byte[7]);
            assertThat(cut.toArray(ValueLayout.JAVA_BYTE)).containsExactly(7, 8, 9, 4, 5, 6, 16, 17, 18, 13, 14, 15, 99);

            // One pixel a row: nothing to reverse.
            MemorySegment single = arena.allocate(6);
            Resize.mirrorRows(source, 0, 9, single, 0, 1, 2, new byte[4]);
            assertThat(single.toArray(ValueLayout.JAVA_BYTE)).containsExactly(1, 2, 3, 10, 11, 12);

            assertThatThrownBy(() -> Resize.mirrorRows(segment, 5, 9, segment, 5, 3, 4, new byte[9]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("row: 9 bytes (expected: 10+)");
            assertThatThrownBy(() -> Resize.mirrorRows(segment, 5, 9, segment, 5, 0, 4, new byte[9]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("width: 0 (expected: 1+)");
        }
    }
}
