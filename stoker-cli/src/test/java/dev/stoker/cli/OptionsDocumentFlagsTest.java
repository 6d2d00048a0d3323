package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.OptionsSchema;
import dev.stoker.loader.clip.Resize;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a loader command's options are made, in one order: the defaults, {@code --config}'s file, {@code --options}'
 * document, then each flag given; a flag not given changes nothing. {@code stoker options} prints the result (and
 * {@code --schema} the published schema), so the order is checked on what the commands run with.
 */
class OptionsDocumentFlagsTest {
    @Test
    void defaultsThenFileThenDocumentThenFlags(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("loader.json");
        Files.writeString(file, "{\"clip\": {\"frames\": 2, \"strideFrames\": 5}, \"batch\": {\"size\": 3}}");
        CliRun run = CliRun.stoker("options", "--config", file.toString(),
                "--options", "{\"clip\": {\"strideFrames\": 3}, \"decode\": {\"threads\": 2}}", "--frames", "8");
        assertThat(run.exitCode()).as(run.err()).isZero();
        LoaderOptions o = LoaderOptions.fromJson(run.out());
        assertThat(o.clip().frames()).as("the flag").isEqualTo(8);
        assertThat(o.clip().strideFrames()).as("the document over the file").isEqualTo(3);
        assertThat(o.batch().size()).as("the file; --batch not given").isEqualTo(3);
        assertThat(o.decode().threads()).as("the document").isEqualTo(2);
        assertThat(o.size()).as("the defaults").isEqualTo(LoaderOptions.defaults().size());
    }

    @Test
    void noFlagsAreTheDefaults() {
        CliRun run = CliRun.stoker("options");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(LoaderOptions.fromJson(run.out())).isEqualTo(LoaderOptions.defaults());
    }

    @Test
    void theSchemaIsThePublishedOne() {
        CliRun run = CliRun.stoker("options", "--schema");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).isEqualTo(OptionsSchema.json());
    }

    @Test
    void aBadDocumentIsAUsageErrorNamingThePath() {
        CliRun run = CliRun.stoker("options", "--options", "{\"batch\": {\"size\": 0}}");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.errLines().getFirst())
                .isEqualTo("stoker options: --options: batch.size: 0 (expected: 1+); see 'stoker options --help'");
    }

    @Test
    void theAugmentationFlagsSetTheSizeGroupAndNoFlipUndoesAFilesFlip(@TempDir Path dir) throws Exception {
        CliRun run = CliRun.stoker("options", "--resize", "random-crop", "--short-side", "128", "--short-side-max", "160",
                "--flip");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(LoaderOptions.fromJson(run.out()).size())
                .isEqualTo(new LoaderOptions.Size(112, 112, Resize.Mode.SHORT_SIDE_RANDOM_CROP, 128, 160, true,
                        LoaderOptions.Size.DEFAULT_AREA_MIN, 1));

        Path file = dir.resolve("loader.json");
        Files.writeString(file, "{\"size\": {\"flip\": true, \"shortSideMax\": 140}}");
        run = CliRun.stoker("options", "--config", file.toString(), "--no-flip");
        assertThat(run.exitCode()).as(run.err()).isZero();
        LoaderOptions.Size size = LoaderOptions.fromJson(run.out()).size();
        assertThat(size.flip()).as("--no-flip over the file").isFalse();
        assertThat(size.shortSideMax()).as("the file; --short-side-max not given").isEqualTo(140);

        run = CliRun.stoker("options", "--resize", "random-resized-crop", "--area-min", "0.2", "--flip");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(LoaderOptions.fromJson(run.out()).size())
                .isEqualTo(new LoaderOptions.Size(112, 112, Resize.Mode.RANDOM_RESIZED_CROP, 0, 0, true, 0.2, 1));

        run = CliRun.stoker("options", "--short-side", "128", "--short-side-max", "120");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.errLines().getFirst()).isEqualTo("stoker options: shortSideMax: 120 (expected: 0 for no jitter, or"
                + " at least the short side, 128); see 'stoker options --help'");
    }

    @Test
    void spatialCropsTakeACentreCropAndAreRefusedWithARandomOneInTheJvmsWords() {
        CliRun run = CliRun.stoker("options", "--spatial-crops", "3", "--short-side", "128");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(LoaderOptions.fromJson(run.out()).size())
                .isEqualTo(new LoaderOptions.Size(112, 112, Resize.Mode.SHORT_SIDE_CENTER_CROP, 128, 0, false,
                        LoaderOptions.Size.DEFAULT_AREA_MIN, 3));
        assertThat(LoaderOptions.fromJson(run.out()).clipsPerVideo()).as("one start, three crops").isEqualTo(3);

        run = CliRun.stoker("options", "--spatial-crops", "3", "--clip-starts", "uniform", "--clips-per-video", "10");
        assertThat(run.exitCode()).as(run.err()).isZero();
        LoaderOptions views = LoaderOptions.fromJson(run.out());
        assertThat(views.clip().starts()).isEqualTo(LoaderOptions.ClipStarts.UNIFORM);
        assertThat(views.clipsPerVideo()).as("the 10x3 views").isEqualTo(30);
        run = CliRun.stoker("options", "--clip-starts", "windows", "--window-step", "0.5");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(LoaderOptions.fromJson(run.out()).clip().windowStepSeconds()).isEqualTo(0.5);
        run = CliRun.stoker("options", "--clip-starts", "dense");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.errLines().getFirst()).startsWith("stoker options: --clip-starts: dense (expected: random, uniform,"
                + " windows, segments or random-segments)");
        run = CliRun.stoker("options", "--clip-starts", "random-segments", "--frames", "8", "--max-lead-frames", "0");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(LoaderOptions.fromJson(run.out()).clip().starts()).isEqualTo(LoaderOptions.ClipStarts.RANDOM_SEGMENTS);
        assertThat(LoaderOptions.fromJson(run.out()).clip().maxLeadFrames()).as("the segments' budget").isZero();
        run = CliRun.stoker("options", "--clip-starts", "segments", "--clips-per-video", "2");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.errLines().getFirst()).startsWith("stoker options: starts: SEGMENTS with clipsPerVideo 2 (expected:");

        run = CliRun.stoker("options", "--spatial-crops", "3", "--resize", "random-crop");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.errLines().getFirst()).isEqualTo("stoker options: spatialCrops: 3 with resize mode"
                + " SHORT_SIDE_RANDOM_CROP (expected: 1; spatial crops are centre crops moved along the long side);"
                + " see 'stoker options --help'");
    }

    @Test
    void theHelpShowsTheRecordsDefaults() {
        CliRun run = CliRun.stoker("bench", "--help");
        assertThat(run.out()).contains("Frames per clip (default: " + LoaderOptions.defaults().clip().frames() + ")")
                .contains("(default: center-crop)").contains("Clips per batch (default: 8)");
    }
}
