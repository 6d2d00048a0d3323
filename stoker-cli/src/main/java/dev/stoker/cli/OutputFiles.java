package dev.stoker.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import dev.stoker.pipeline.TraceRecorder;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The files the commands write when asked ({@code --json}, {@code --report}, {@code --save-config}): JSON is
 * indented, and a file that cannot be written is an error naming the option and the file.
 */
final class OutputFiles {
    /**
     * How every command writes its JSON: indented, for people as much as for scripts; a figure the run could not
     * measure (NaN: a run too short for a steady state) is null, where Jackson would write the string "NaN" in the
     * place of a number.
     */
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .registerModule(new SimpleModule("finite-or-null")
                    .addSerializer(Double.class, new FiniteOrNull()).addSerializer(double.class, new FiniteOrNull()));

    private static final class FiniteOrNull extends StdSerializer<Double> {
        FiniteOrNull() {
            super(Double.class);
        }

        @Override
        public void serialize(Double value, JsonGenerator out, SerializerProvider provider) throws IOException {
            if (Double.isFinite(value)) {
                out.writeNumber(value);
            } else {
                out.writeNull();
            }
        }
    }

    private OutputFiles() {
    }

    /**
     * Refuses, before a run, a file the run could not write at its end: one in a folder that is not there or not
     * writable, or a folder itself. Hours of measuring were lost to a typo in {@code --json}'s folder.
     */
    static void checkWritable(String option, Path file) {
        if (file == null) {
            return;
        }
        Path folder = file.toAbsolutePath().getParent();
        String problem = Files.isDirectory(file) ? "a folder"
                : folder != null && !Files.isDirectory(folder) ? "no folder " + folder
                : folder != null && !Files.isWritable(folder) ? "the folder " + folder + " is not writable"
                : Files.exists(file) && !Files.isWritable(file) ? "not writable" : null;
        if (problem != null) {
            String message = option + ": cannot write " + file + " (" + problem + ")";
            throw new UncheckedIOException(message, new IOException(message));   // the message alone, no class name
        }
    }

    /** Writes {@code text} to {@code file}, the value of {@code option}. */
    static void write(String option, Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(option + ": cannot write " + file + " (" + CliErrors.describe(e) + ")", e);
        }
    }

    /** Writes {@code value} as indented JSON to {@code file}, the value of {@code option}. */
    static void writeJson(String option, Path file, Object value) {
        String text;
        try {
            text = JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(option + ": cannot write " + file + " as JSON (" + CliErrors.describe(e) + ")", e);
        }
        write(option, file, text);
    }

    /** {@code --json FILE}: writes {@code value} as indented JSON and says so; nothing without the option. */
    static void json(PrintWriter out, Path file, Object value) {
        if (file != null) {
            writeJson("--json", file, value);
            out.println("wrote results to " + file);
        }
    }

    /** {@code --trace FILE}: writes what {@code recorder} recorded and says so; nothing without the option. */
    static void trace(PrintWriter out, Path file, TraceRecorder recorder) {
        if (recorder != null) {
            try {
                recorder.write(file);
            } catch (UncheckedIOException e) {
                throw new UncheckedIOException("--trace: cannot write " + file + " (" + CliErrors.describe(e.getCause())
                        + ")", e.getCause());
            }
            out.printf(Locale.ROOT, "wrote trace to %s (%d events; open it in ui.perfetto.dev)%n", file, recorder.retainedEvents());
        }
    }
}
