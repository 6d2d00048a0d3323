package dev.stoker.loader.dataset;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * Reads {@code path,label[,start,end]} manifests, the form most training repositories keep splits in, and with a
 * fifth field, the sample's text (a caption; quote it when it holds a comma): {@code path,label,start,end,text}, the
 * range may be empty ({@code a.mp4,3,,,a dog runs}); an empty text is none. Under a header {@code path,label,text} (or
 * {@code caption}), three fields are path, label and text; without that header a third field is an error, not a text
 * (it is more likely a range missing its end).
 */
final class CsvManifestLoader {

    private record Row(int line, Path path, String label, OptionalDouble start, OptionalDouble end,
                       Optional<String> text) {
    }

    private CsvManifestLoader() {
    }

    static Dataset load(Path manifest) throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(manifest, StandardCharsets.UTF_8);   // a line at a time: manifests grow large
        } catch (CharacterCodingException e) {
            InvalidDatasetException named = Utf8.firstError(manifest, "a manifest");
            throw named != null ? named : e;
        }
        Path base = manifest.toAbsolutePath().getParent();
        List<Row> rows = new ArrayList<>(lines.size());
        boolean firstDataLine = true;
        boolean textThird = false;
        for (int i = 0; i < lines.size(); i++) {
            String text = i == 0 ? stripByteOrderMark(lines.get(i)) : lines.get(i);
            if (text.isBlank() || text.stripLeading().startsWith("#")) {
                continue;
            }
            List<String> fields = split(text, manifest, i + 1);
            if (firstDataLine && isHeader(fields)) {
                firstDataLine = false;
                textThird = fields.size() == 3
                        && (fields.get(2).equalsIgnoreCase("text") || fields.get(2).equalsIgnoreCase("caption"));
                continue;
            }
            firstDataLine = false;
            rows.add(parse(fields, textThird, base, manifest, i + 1));
        }
        if (rows.isEmpty()) {
            throw new InvalidDatasetException(manifest
                    + " lists no videos (expected: lines path,label[,start,end[,text]])");
        }
        return label(rows, manifest);
    }

    /**
     * Column names a manifest's first line may give its path: {@code video,class} is a header too. A second field alone
     * is no sign unless it is {@code label}: a first sample of class {@code action} must not be taken for a header.
     */
    private static final Set<String> PATH_COLUMNS = Set.of("path", "video", "video_path", "videopath", "filename",
            "file_name", "file", "url", "clip", "clip_path");
    private static final String LABEL_COLUMN = "label";

    /**
     * Whether the first line names its columns. A header read as a sample would fail as a missing file, and worse, its
     * label word would be a class of its own, shifting every label sorted after it.
     */
    private static boolean isHeader(List<String> fields) {
        return PATH_COLUMNS.contains(fields.get(0).toLowerCase(Locale.ROOT))
                || (fields.size() > 1 && fields.get(1).equalsIgnoreCase(LABEL_COLUMN));
    }

    private static Row parse(List<String> fields, boolean textThird, Path base, Path manifest, int line)
            throws InvalidDatasetException {
        int size = fields.size();
        if (textThird ? size != 3 : size != 2 && size != 4 && size != 5) {
            throw error(manifest, line, size + " fields (expected: " + (textThird
                    ? "path,label,text, as the header says"
                    : "path,label or path,label,start,end[,text], or path,label,text under a header line"
                            + " path,label,text")
                    + "; quote a text that holds a comma)");
        }
        boolean ranged = size >= 4;
        // An empty field is no text: a manifest has no other way to say a sample has none.
        Optional<String> text = textThird || size == 5 ? Optional.of(fields.getLast()).filter(t -> !t.isEmpty())
                : Optional.empty();
        String pathText = fields.get(0);
        if (pathText.isEmpty()) {
            throw error(manifest, line, "path is empty (expected: a file path)");
        }
        Path path;
        try {
            path = Path.of(pathText);
        } catch (InvalidPathException e) {
            throw error(manifest, line, "path '" + pathText + "' is invalid: " + e.getReason());
        }
        path = path.isAbsolute() ? path : base.resolve(path).normalize();
        String label = fields.get(1);
        if (label.isEmpty()) {
            throw error(manifest, line, "label is empty (expected: an integer 0+ or a class name)");
        }
        OptionalDouble start = OptionalDouble.empty();
        OptionalDouble end = OptionalDouble.empty();
        if (ranged) {
            start = seconds(fields.get(2), "start", manifest, line);
            end = seconds(fields.get(3), "end", manifest, line);
            if (end.isPresent() && !(end.getAsDouble() > start.orElse(0))) {
                throw error(manifest, line, "end " + fields.get(3) + " (expected: > start " + start.orElse(0) + ")");
            }
        }
        return new Row(line, path, label, start, end, text);
    }

    private static OptionalDouble seconds(String text, String name, Path manifest, int line)
            throws InvalidDatasetException {
        if (text.isEmpty()) {
            return OptionalDouble.empty();
        }
        try {
            double value = Double.parseDouble(text);
            if (value >= 0 && Double.isFinite(value)) {
                return OptionalDouble.of(value);
            }
        } catch (NumberFormatException ignored) {
            // reported below, with the line
        }
        throw error(manifest, line, name + " '" + text + "' (expected: seconds, a number 0+, or empty)");
    }

    /** The labels as {@link TextLabels} reads them: all integers kept, all names numbered in sorted order. */
    private static Dataset label(List<Row> rows, Path manifest) throws InvalidDatasetException {
        TextLabels labels = TextLabels.of(rows.stream().map(Row::label).toList(),
                i -> String.format(Locale.ROOT, "%s line %d", manifest, rows.get(i).line),
                "line " + rows.get(0).line, "a file");
        List<VideoEntry> entries = new ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            Row row = rows.get(i);
            int label = labels.labels()[i];
            entries.add(new VideoEntry(row.path, label, labels.classNames().get(label), row.start, row.end, row.text));
        }
        return new Dataset(entries, labels.classNames());
    }

    /** Splits one line; double quotes protect commas, and {@code ""} inside quotes is a quote. */
    static List<String> split(String text, Path manifest, int line) throws InvalidDatasetException {
        List<String> fields = new ArrayList<>(4);
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    field.append(c);
                }
            } else if (c == '"' && field.toString().isBlank()) {
                field.setLength(0);
                quoted = true;
            } else if (c == ',') {
                fields.add(field.toString().strip());
                field.setLength(0);
            } else {
                field.append(c);
            }
        }
        if (quoted) {
            throw error(manifest, line, "unterminated quote (expected: a closing \")");
        }
        fields.add(field.toString().strip());
        return fields;
    }

    private static String stripByteOrderMark(String text) {
        return text.startsWith("\uFEFF") ? text.substring(1) : text;
    }

    private static InvalidDatasetException error(Path manifest, int line, String what) {
        return new InvalidDatasetException(String.format(Locale.ROOT, "%s line %d: %s", manifest, line, what));
    }
}
