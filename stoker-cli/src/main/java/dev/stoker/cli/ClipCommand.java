package dev.stoker.cli;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.loader.clip.Resize;
import dev.stoker.video.ClipExport;
import dev.stoker.video.FailureReason;
import dev.stoker.video.VideoException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code stoker clip VIDEO}: writes one clip as PNG frames, decoded as the loader decodes it. */
@Command(name = "clip",
        header = "Write one clip as PNG frames plus clip.json, decoded as the loader decodes it.",
        mixinStandardHelpOptions = true,
        description = {
                "Decodes one clip of a video the way the loader does and writes it as",
                "frame_0000.png, frame_0001.png, ... plus clip.json (each frame's index and",
                "presentation time, the source size and rotation, frames decoded).",
                "The first frame is the first with a timestamp >= --start (seconds from the first frame).",
                "",
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  stoker clip video.mp4 --start 2 --frames 16 --stride 2 --size 112 --out clip/",
                "  stoker clip video.mp4 --frames 8 --fps 4 --out clip/   8 frames at 4 fps",
                "  stoker clip video.mp4 --frames 16 --resize original --out clip/  full size",
        })
final class ClipCommand extends Subcommand {
    @Parameters(index = "0", paramLabel = "VIDEO") Path video;
    @Option(names = "--start", defaultValue = "0") double start;
    @Option(names = "--frames", defaultValue = "16") int frames;
    @Option(names = "--stride", defaultValue = "1") int stride;
    @Option(names = "--fps") Double fps;
    @Option(names = "--size", defaultValue = "112x112", paramLabel = "S|WxH") String size;
    @Option(names = "--resize", defaultValue = "center-crop", paramLabel = "MODE") String resize;
    @Option(names = "--past-end", defaultValue = "SHIFT") PastEndPolicy pastEnd;
    @Option(names = "--out", required = true, paramLabel = "DIR") Path out;
    @Option(names = "--frame-folder-fps", defaultValue = "30", paramLabel = "FPS") double frameFolderFps;

    @Override
    public Integer call() throws Exception {
        ClipSpec clip;
        Resize geometry;
        try {
            clip = fps != null ? ClipSpec.resampled(start, frames / fps, fps).withPastEnd(pastEnd)
                    : ClipSpec.frames(start, frames, stride).withPastEnd(pastEnd);
            geometry = geometry();
        } catch (IllegalArgumentException e) {
            throw usageError(e.getMessage());
        }
        DecodedClip decoded;
        try {
            decoded = ClipExport.export(video, clip, geometry, out, LoaderOptionsMixin.frameFolderFps(spec, frameFolderFps));
        } catch (VideoException e) {
            if (e.reason() == FailureReason.NOT_FOUND) {
                // Asked of the file itself rather than beforehand: a WebDataset member (x.tar/k.mp4) is no file of its own.
                throw usageError("VIDEO: " + video + " does not exist");
            }
            throw e;
        }
        PrintWriter w = out();
        w.printf(Locale.ROOT, "wrote %d frames of %dx%d to %s (first pts %.3f s, %d frames decoded)%n",
                decoded.frameCount(), decoded.width(), decoded.height(), out, decoded.ptsSeconds().getFirst(),
                decoded.decodedFrames());
        return ExitCode.OK;
    }

    private Resize geometry() {
        if (resize.equals("original")) {
            return Resize.original();
        }
        SizeArgument wh = SizeArgument.parse(size);
        int width = wh.width();
        int height = wh.height();
        return switch (resize) {
            case "center-crop" -> Resize.centerCrop(Math.max(width, height), width, height);
            case "stretch" -> Resize.stretch(width, height);
            default -> throw new IllegalArgumentException("--resize: " + resize + " (expected: center-crop, stretch or original)");
        };
    }
}
