package dev.stoker.loader.dataset;

import dev.stoker.loader.dataset.internal.ArchiveMembers;
import dev.stoker.loader.dataset.internal.BracePattern;
import dev.stoker.loader.dataset.internal.TarIndex;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * Reads WebDataset shards: tar archives whose members are grouped into samples by key, the member's name up to the
 * first dot of its file name ({@code clips/abc.mp4} and {@code clips/abc.cls} are the sample {@code clips/abc}). Each
 * video member ({@link #VIDEO_EXTENSIONS}) is a video of the dataset, read in place as
 * {@code <archive>/<member>}; its sample's {@code .cls} member, if any, is its label (text: an integer, or a class name,
 * as a manifest's labels are: {@link TextLabels}), and its {@code .txt} member, if any, its text (a caption, as
 * video2dataset writes it: {@link SampleText}). Archives are taken in name order and members in archive order, so
 * that the order is the same everywhere. Other members ({@code .json}) are not read.
 */
final class TarArchivesLoader {
    /** The extensions (after the last dot, any case) of members that are videos. */
    static final Set<String> VIDEO_EXTENSIONS = Set.of("mp4", "m4v", "mov", "mkv", "webm", "avi", "mpg", "mpeg",
            "ts", "flv", "3gp", "wmv", "ogv");
    /** The class of a dataset whose samples carry no {@code .cls}: every video is labelled 0. */
    static final String UNLABELLED = "unlabelled";
    /** A {@code .cls} member is a short text; a longer one is a mistake (a video named .cls), not a label. */
    static final int MAX_LABEL_BYTES = 1024;

    /** A video member; {@code intact} false: cut away with its archive's end, so that its fetch fails as truncated. */
    private record Video(Path path, Path labelMember, String labelText, Optional<String> text, boolean intact) {
    }

    private TarArchivesLoader() {
    }

    /** The tar archives directly in {@code folder}, in name order (none: the folder is not of this kind). */
    static List<Path> archivesIn(Path folder) throws IOException {
        List<Path> archives = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(folder)) {
            for (Path child : stream) {
                if (ArchiveMembers.isArchiveName(child.getFileName().toString()) && Files.isRegularFile(child)) {
                    archives.add(child);
                }
            }
        }
        archives.sort(Comparator.comparing(p -> p.getFileName().toString()));
        return archives;
    }

    /** The archives a brace pattern names ({@link BracePattern}), in its order; every one must be there. */
    static List<Path> archivesNamed(Path pattern) throws IOException {
        List<String> names;
        try {
            names = BracePattern.expand(pattern.toString());
        } catch (IllegalArgumentException e) {
            throw new InvalidDatasetException("dataset source: " + e.getMessage());
        }
        List<Path> archives = new ArrayList<>(names.size());
        for (String name : names) {
            Path archive = Path.of(name);
            if (!ArchiveMembers.isArchiveName(archive.getFileName().toString())) {
                throw new InvalidDatasetException("dataset source " + pattern + " names " + archive
                        + " (expected: .tar archives only)");
            }
            if (!Files.isRegularFile(archive)) {
                throw new NoSuchFileException(archive.toString(), null, "one of the " + names.size()
                        + " archives " + pattern + " names is not there");
            }
            archives.add(archive);
        }
        return archives;
    }

    static Dataset load(List<Path> archives, Path source) throws IOException {
        List<Video> videos = new ArrayList<>();
        for (Path archive : archives) {
            TarIndex index;
            try {
                index = ArchiveMembers.index(archive);
            } catch (NoSuchFileException e) {
                throw e;
            } catch (IOException e) {
                throw new InvalidDatasetException(e.getMessage());
            }
            Map<String, TarIndex.Member> labelsByKey = new HashMap<>();
            Map<String, TarIndex.Member> textsByKey = new HashMap<>();
            List<TarIndex.Member> videoMembers = new ArrayList<>();
            for (TarIndex.Member member : index.members()) {
                if (member.name().substring(member.name().lastIndexOf('/') + 1).startsWith(".")) {
                    continue; // hidden: macOS's ._k.mp4 resource forks, whose key would be empty
                }
                String extension = extension(member.name());
                if (extension.equals("cls")) {
                    labelsByKey.put(TarIndex.sampleKey(member.name()), member);
                } else if (extension.equals(SampleText.EXTENSION)) {
                    textsByKey.put(TarIndex.sampleKey(member.name()), member);
                } else if (VIDEO_EXTENSIONS.contains(extension.substring(extension.lastIndexOf('.') + 1))) {
                    videoMembers.add(member);
                }
            }
            // One channel an archive for its labels and texts: a shard of 10^4 samples has as many. A text two videos
            // of a sample share (k.left.mp4, k.right.mp4) is read and held once.
            Map<String, Optional<String>> textsRead = new HashMap<>();
            try (FileChannel channel = FileChannel.open(archive, StandardOpenOption.READ)) {
                for (TarIndex.Member member : videoMembers) {
                    String key = TarIndex.sampleKey(member.name());
                    TarIndex.Member label = labelsByKey.get(key);
                    TarIndex.Member textMember = textsByKey.get(key);
                    // A label whose bytes are all there is read, even in a cut sample: its class is the dataset's.
                    boolean labelRead = label != null && label.within(index.sizeBytes());
                    boolean intact = index.intact(member);
                    Optional<String> text = Optional.empty();
                    // A cut sample is never delivered: its text, perhaps cut too, is not read.
                    if (textMember != null && intact && textMember.within(index.sizeBytes())) {
                        text = textsRead.get(key);
                        if (text == null) {
                            text = text(archive, textMember, channel);
                            textsRead.put(key, text);
                        }
                    }
                    videos.add(new Video(archive.resolve(member.name()),
                            label == null ? null : archive.resolve(label.name()),
                            labelRead ? labelText(archive, label, channel) : null, text, intact));
                }
            }
        }
        if (videos.isEmpty()) {
            throw new InvalidDatasetException(source + ": " + archives.size() + " tar archive(s) but no video in them"
                    + " (expected: members named <key>.mp4 or another video extension, " + VIDEO_EXTENSIONS.stream()
                    .sorted().toList() + ", with an optional <key>.cls label)");
        }
        return label(videos);
    }

    /**
     * Every video labelled by its {@code .cls}, or none labelled (class {@link #UNLABELLED}); a mix is refused. Judged on
     * the intact videos: the last sample of an archive cut short may have lost its label with its end, and stays in the
     * dataset to fail as truncated (counted), never delivered: its label is read when all of it is there (its class is
     * one of the dataset's), else the first video's stands in.
     */
    private static Dataset label(List<Video> videos) throws InvalidDatasetException {
        List<Video> judged = videos.stream().filter(Video::intact).toList();
        Video first = (judged.isEmpty() ? videos : judged).get(0);
        List<VideoEntry> entries = new ArrayList<>(videos.size());
        if (first.labelText == null) {
            for (Video video : judged) {
                if (video.labelText != null) {
                    throw new InvalidDatasetException(video.path + ": labelled by " + video.labelMember + ", but "
                            + first.path + " has no .cls member (expected: every sample labelled, or none)");
                }
            }
            for (Video video : videos) {
                entries.add(entry(video, 0, UNLABELLED));
            }
            return new Dataset(entries, List.of(UNLABELLED));
        }
        for (Video video : judged) {
            if (video.labelText == null) {
                throw new InvalidDatasetException(video.path + ": no .cls member, but " + first.path + " is labelled by "
                        + first.labelMember + " (expected: every sample labelled, or none)");
            }
        }
        TextLabels labels = TextLabels.of(videos.stream().map(v -> v.labelText != null ? v.labelText : first.labelText)
                        .toList(), i -> String.valueOf(Objects.requireNonNullElse(videos.get(i).labelMember,
                        videos.get(i).path)), first.labelMember.toString(), "a dataset");
        for (int i = 0; i < videos.size(); i++) {
            int label = labels.labels()[i];
            entries.add(entry(videos.get(i), label, labels.classNames().get(label)));
        }
        return new Dataset(entries, labels.classNames());
    }

    private static VideoEntry entry(Video video, int label, String className) {
        return new VideoEntry(video.path, label, className, OptionalDouble.empty(), OptionalDouble.empty(), video.text);
    }

    private static Optional<String> text(Path archive, TarIndex.Member member, FileChannel channel) throws IOException {
        Path path = archive.resolve(member.name());
        if (member.sizeBytes() > SampleText.MAX_BYTES) {
            throw SampleText.tooLong(path, member.sizeBytes());
        }
        return SampleText.decode(ArchiveMembers.read(channel, member), path);
    }

    private static String labelText(Path archive, TarIndex.Member member, FileChannel channel) throws IOException {
        Path path = archive.resolve(member.name());
        if (member.sizeBytes() > MAX_LABEL_BYTES) {
            throw new InvalidDatasetException(path + ": a label of " + member.sizeBytes() + " bytes (expected: a class"
                    + " index or name, at most " + MAX_LABEL_BYTES + ")");
        }
        String text = Utf8.decode(ArchiveMembers.read(channel, member), path, "a label").strip();
        if (text.isEmpty()) {
            throw new InvalidDatasetException(path + ": an empty label (expected: a class index or name)");
        }
        return text;
    }

    /** WebDataset's extension: what follows the first dot of the last part, lowercased ({@code "left.mp4"}). */
    static String extension(String member) {
        int slash = member.lastIndexOf('/');
        int dot = member.indexOf('.', slash + 1);
        return dot < 0 ? "" : member.substring(dot + 1).toLowerCase(Locale.ROOT);
    }
}
