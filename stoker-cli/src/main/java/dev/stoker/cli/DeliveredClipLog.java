package dev.stoker.cli;

import dev.stoker.loader.batch.ClipInfo;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code stoker bench --clips-out FILE}: every delivered clip, one a line, in delivery order: batch number, path,
 * label and frame times. Two runs of one seed deliver the same lines, so a diff of two such files shows a clip
 * lost, repeated or moved (the soak run compares one whose child JVM was killed with an undisturbed one).
 */
final class DeliveredClipLog implements AutoCloseable {
    private final Path file;
    private final BufferedWriter writer;

    private DeliveredClipLog(Path file, BufferedWriter writer) {
        this.file = file;
        this.writer = writer;
    }

    /** A log writing to {@code file}, or one that writes nothing when it is null. */
    static DeliveredClipLog open(Path file) {
        try {
            return new DeliveredClipLog(file, file == null ? null : Files.newBufferedWriter(file));
        } catch (IOException e) {
            throw new UncheckedIOException("--clips-out: cannot write " + file + " (" + CliErrors.describe(e) + ")", e);
        }
    }

    void batch(long batch, List<ClipInfo> clips) {
        if (writer == null) {
            return;
        }
        try {
            for (ClipInfo clip : clips) {
                StringBuilder line = new StringBuilder().append(batch).append('\t').append(clip.path()).append('\t')
                        .append(clip.label()).append('\t');
                double[] times = clip.frameTimestampsSeconds();
                for (int i = 0; i < times.length; i++) {
                    line.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT, "%.6f", times[i]));
                }
                writer.write(line.append('\n').toString());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("--clips-out: cannot write " + file + " (" + CliErrors.describe(e) + ")", e);
        }
    }

    @Override
    public void close() {
        if (writer != null) {
            try {
                writer.close();
            } catch (IOException e) {
                throw new UncheckedIOException("--clips-out: cannot write " + file + " (" + CliErrors.describe(e) + ")", e);
            }
        }
    }
}
