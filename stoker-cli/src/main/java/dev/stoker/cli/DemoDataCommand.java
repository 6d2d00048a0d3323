package dev.stoker.cli;

import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code stoker demo-data DIR}: writes the deterministic Kinetics-like demo dataset. */
@Command(name = "demo-data",
        header = "Make the deterministic Kinetics-like demo dataset.",
        mixinStandardHelpOptions = true,
        description = {
                "Makes a deterministic Kinetics-like video dataset with the bundled FFmpeg (no system",
                "ffmpeg needed): DIR/<class>/<clip>, 10 classes of 10 clips of 10 s, 340x256, 30 fps,",
                "H.264 (GOP 250) in MP4, a tenth VP8 in WebM and two AV1 in Matroska.",
                "Rerunning on a complete folder does nothing.",
                "",
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  stoker demo-data data/demo                  the full dataset: about 1 min",
                "  stoker demo-data /tmp/tiny --classes 2 --clips 3 --seconds 2",
                "  stoker bench data/demo                      then load it",
        })
final class DemoDataCommand extends Subcommand {
    @Parameters(index = "0", paramLabel = "DIR") Path dir;
    @Option(names = "--classes", defaultValue = "10") int classes;
    @Option(names = "--clips", defaultValue = "10") int clips;
    @Option(names = "--seconds", defaultValue = "10") double seconds;

    @Override
    public Integer call() throws Exception {
        DemoSpec demo;
        try {
            demo = DemoSpec.small(classes, clips, seconds);
        } catch (IllegalArgumentException e) {
            throw usageError(e.getMessage());
        }
        PrintWriter out = out();
        if (DemoDataset.isComplete(dir, demo)) {
            out.println(dir + " already holds this demo dataset (" + demo.clipCount() + " clips)");
            return ExitCode.OK;
        }
        long start = System.nanoTime();
        int total = demo.clipCount();
        DemoDataset.create(dir, demo, written -> {
            synchronized (out) {
                out.printf(Locale.ROOT, "\rwriting clips: %d/%d", written, total);
                out.flush();
            }
        });
        out.printf(Locale.ROOT, "%nwrote %d clips to %s in %.1f s%n", total, dir, (System.nanoTime() - start) / 1e9);
        return ExitCode.OK;
    }
}
