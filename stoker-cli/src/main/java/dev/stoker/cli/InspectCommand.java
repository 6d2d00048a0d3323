package dev.stoker.cli;

import dev.stoker.bench.internal.Bytes;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.internal.SampleInfo;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.shard.Manifest;
import dev.stoker.store.shard.ShardFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;

/** {@code stoker inspect DEST}: what an ingested folder holds. */
@Command(name = "inspect",
        header = "Summarise an ingested shard folder.",
        mixinStandardHelpOptions = true,
        description = {
                "Prints what an ingested shard folder holds: format and ingest options, samples, classes,",
                "frames, shards, bytes (per sample, per frame) and the sources that failed. Reads only the",
                "manifest.",
                "",
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  stoker inspect shards/demo",
                "  stoker verify shards/demo        check every checksum",
                "  stoker bench shards/demo         load the shards",
        })
final class InspectCommand extends ShardFolderCommand {
    @Override
    int report(PrintWriter out) throws IOException {
        try (ShardDataset shards = ShardDataset.open(dest)) {
            Manifest m = shards.manifest();
            IngestOptions o = m.options();
            long frames = 0;
            long texts = 0;
            long[] perClass = new long[m.classNames().size()];
            for (SampleInfo s : shards.samples()) {
                frames += s.frameCount();
                perClass[s.label()]++;
                texts += s.text().isPresent() ? 1 : 0;
            }
            long fileBytes = m.shards().stream().mapToLong(ShardFile.Summary::fileBytes).sum();
            out.printf(Locale.ROOT, "%s%n", dest);
            out.printf(Locale.ROOT, "format       %s (shard format version %d)%n", m.format(), m.formatVersion());
            out.printf(Locale.ROOT, "options      size %s, fps %s,%s shard size %s%s%n",
                    o.width() > 0 ? o.width() + "x" + o.height() : o.shortSide() > 0 ? "short side " + o.shortSide() : "source",
                    o.framesPerSecond() > 0 ? String.valueOf(o.framesPerSecond()) : "source",
                    o.format() == IngestOptions.Format.VIDEO ? " gop " + o.gopFrames() + "," : "",  // jpeg, raw: no GOP
                    Bytes.human(o.shardSizeBytes()), (o.format() == IngestOptions.Format.JPEG ? ", jpeg quality " + o.jpegQuality() : "")
                            + (o.frameFolderFps() > 0 ? ", folders of frames at " + o.frameFolderFps() + " fps" : ""));
            out.printf(Locale.ROOT, "samples      %d of %d sources (%d failed)%n", m.sampleCount(), m.sourceCount(), m.failedCount());
            out.printf(Locale.ROOT, "classes      %d:", perClass.length);
            for (int c = 0; c < perClass.length; c++) {
                out.printf(Locale.ROOT, " %s (%d)%s", m.classNames().get(c), perClass[c], c + 1 < perClass.length ? "," : "");
            }
            out.println();
            if (texts > 0) {
                out.printf(Locale.ROOT, "texts        %d of %d samples carry one (a caption, delivered with its clips)%n",
                        texts, m.sampleCount());
            }
            out.printf(Locale.ROOT, "frames       %d (%.1f per sample)%n", frames, m.sampleCount() == 0 ? 0.0 : (double) frames / m.sampleCount());
            if (!shards.samples().isEmpty()) {
                SampleInfo first = shards.sample(0);
                out.printf(Locale.ROOT, "frame size   %dx%d (first sample)%n", first.width(), first.height());
            }
            out.printf(Locale.ROOT, "shards       %d, %s on disk%n", m.shards().size(), Bytes.human(fileBytes));
            out.printf(Locale.ROOT, "payload      %s: %s per sample, %s per frame%n", Bytes.human(m.payloadBytes()),
                    Bytes.human(m.sampleCount() == 0 ? 0 : m.payloadBytes() / m.sampleCount()),
                    Bytes.human(frames == 0 ? 0 : m.payloadBytes() / frames));
            for (Manifest.FailedSource f : m.failed()) {
                out.printf(Locale.ROOT, "failed       %s: %s: %s%n", f.source(), f.reason(), f.message());
            }
            return ExitCode.OK;
        }
    }
}
