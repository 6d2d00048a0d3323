package dev.stoker.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
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
    /** How every command writes its JSON: indented, for people as much as for scripts. */
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private OutputFiles() {
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
            recorder.write(file);
            out.printf(Locale.ROOT, "wrote trace to %s (%d events; open it in ui.perfetto.dev)%n", file, recorder.retainedEvents());
        }
    }
}
