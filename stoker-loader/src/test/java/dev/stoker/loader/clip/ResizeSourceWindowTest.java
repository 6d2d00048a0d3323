package dev.stoker.loader.clip;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link Resize#sourceWindow}: which pixels of a decoded picture a clip shows, for the CPU and the GPU alike. */
class ResizeSourceWindowTest {

    @Test
    void aCentreCropOfAShortSideResizeTakesTheMiddle() {
        // 320x240 to a 112 short side and 112x112: the middle 240x240.
        assertThat(Resize.centerCrop(112, 112, 112).sourceWindow(0, 320, 240, centred(112), 112, 112, 1, 1))
                .isEqualTo(new Resize.Window(40, 0, 240, 240));
        // A larger short side than the crop: 128 short side, 112 crop: 240 * 112 / 128 = 210 of the 240 rows.
        assertThat(Resize.centerCrop(128, 112, 112).sourceWindow(0, 320, 240, centred(128), 112, 112, 1, 1))
                .isEqualTo(new Resize.Window(54, 14, 210, 210));
    }

    @Test
    void aRandomCropMovesWithinThePictureOnWholeChromaSamples() {
        Resize crop = Resize.randomCrop(112, 112, 112, 1);
        assertThat(crop.sourceWindow(0, 320, 240, at(0.0, 0.0, 112), 112, 112, 1, 1)).isEqualTo(new Resize.Window(0, 0, 240, 240));
        assertThat(crop.sourceWindow(0, 320, 240, at(1.0, 1.0, 112), 112, 112, 1, 1)).isEqualTo(new Resize.Window(80, 0, 240, 240));
        // 0.33 of the 80 spare columns is 26.4: 26, already on a chroma sample.
        assertThat(crop.sourceWindow(0, 320, 240, at(0.33, 0.5, 112), 112, 112, 1, 1).x()).isEqualTo(26);
        // 0.36 of 81 spare columns is 29.16: 29 where chroma is full resolution (4:4:4), 28 for 4:2:0.
        assertThat(crop.sourceWindow(0, 321, 240, at(0.36, 0.5, 112), 112, 112, 0, 0).x()).isEqualTo(29);
        assertThat(crop.sourceWindow(0, 321, 240, at(0.36, 0.5, 112), 112, 112, 1, 1).x()).isEqualTo(28);
    }

    @Test
    void stretchTakesTheWholePicture() {
        assertThat(Resize.stretch(40, 30).sourceWindow(0, 320, 240, Resize.stretch(40, 30).framing(), 40, 30, 1, 1))
                .isEqualTo(new Resize.Window(0, 0, 320, 240));
    }

    @Test
    void aRotatedVideoCropsTheDisplayedPictureInCodedPixels() {
        // Coded 240x320 shown turned 90 degrees: displayed 320x240, its middle 240x240 is coded rows 40..280.
        assertThat(Resize.centerCrop(112, 112, 112).sourceWindow(90, 240, 320, centred(112), 112, 112, 1, 1))
                .isEqualTo(new Resize.Window(0, 40, 240, 240));
    }

    @Test
    void aJitteredShortSideCutsASmallerWindowOfTheSamePicture() {
        // Drawn 160 instead of 112: the 112x112 crop is 240 * 112 / 160 = 168 pixels of the 240 rows, centred.
        Resize resize = Resize.centerCrop(112, 112, 112).augmented(7, 160, false);
        assertThat(resize.sourceWindow(0, 320, 240, centred(160), 112, 112, 1, 1))
                .isEqualTo(new Resize.Window(76, 36, 168, 168));
    }

    @Test
    void spatialCropsRunAlongTheLongSideWithTheShortSideCentredHoweverThePictureIsTurned() {
        // 320x240 to a 128 short side, 112x112 crops: 210x210 windows, 110 spare columns and 30 spare rows. Three crops
        // take the left, the middle and the right of the long side, each centred on the short side (rows 14 to 224;
        // PyTorchVideo's uniform_crop places its three so).
        Resize centre = Resize.centerCrop(128, 112, 112);
        int[] landscapeX = {0, 54, 110};
        int[] turnedY = {110, 54, 0};
        for (int crop = 0; crop < 3; crop++) {
            Resize resize = centre.spatialCrop(crop, 3);
            assertThat(resize.sourceWindow(0, 320, 240, resize.framing(), 112, 112, 1, 1)).as("crop %d", crop)
                    .isEqualTo(new Resize.Window(landscapeX[crop], 14, 210, 210));
            // Portrait, 240x320: down the long side (the top first), columns centred.
            assertThat(resize.sourceWindow(0, 240, 320, resize.framing(), 112, 112, 1, 1)).as("portrait crop %d", crop)
                    .isEqualTo(new Resize.Window(14, landscapeX[crop], 210, 210));
            // Coded 240x320 shown turned 90 degrees clockwise: displayed landscape, so the crops run across what is
            // shown, which is up the coded picture from its bottom (the displayed left): rows 110, 55 (54 on a chroma
            // row) and 0.
            assertThat(resize.sourceWindow(90, 240, 320, resize.framing(), 112, 112, 1, 1)).as("turned crop %d", crop)
                    .isEqualTo(new Resize.Window(14, turnedY[crop], 210, 210));
        }
        // The middle of three is the plain centre crop's window; one crop is the centre crop itself.
        assertThat(centre.spatialCrop(1, 3).sourceWindow(0, 320, 240, centre.spatialCrop(1, 3).framing(), 112, 112, 1, 1))
                .isEqualTo(centre.sourceWindow(0, 320, 240, centre.framing(), 112, 112, 1, 1));
        // Five crops on 4:2:0 (whole chroma samples): 110 spare columns at 0, 1/4, 1/2, 3/4, 1: 0, 27.5, 55, 82.5, 110
        // rounded, then down to even columns.
        int[] fifths = {0, 28, 54, 82, 110};
        for (int crop = 0; crop < 5; crop++) {
            Resize resize = centre.spatialCrop(crop, 5);
            assertThat(resize.sourceWindow(0, 320, 240, resize.framing(), 112, 112, 1, 1).x()).as("crop %d of 5", crop)
                    .isEqualTo(fifths[crop]);
        }
    }

    private static Resize.Framing centred(int shortSide) {
        return new Resize.Framing(0.5, 0.5, shortSide, false);
    }

    private static Resize.Framing at(double x, double y, int shortSide) {
        return new Resize.Framing(x, y, shortSide, false);
    }
}
