package dev.stoker.video.internal;

import dev.stoker.loader.dataset.internal.FileStamp;
import dev.stoker.video.FailureReason;
import dev.stoker.video.VideoException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The frames of a folder of frames, by name, in play order: its JPEG or PNG files ordered by the number in their names;
 * of several names, mmaction2's {@code img} frames. A folder is listed for every clip drawn from it, and some hold 10^5
 * frames (EPIC-KITCHENS' {@code rgb_frames}, cut into many samples by a manifest), so a listing is remembered while the
 * folder's modification time stands (entries added, removed or renamed change it; a folder changed in the last two
 * seconds is not kept, a coarse clock's tick; a frame found gone forgets it): frames numbered without a gap
 * ({@code img_00001.jpg} on) as their pattern, a few bytes whatever their count; others as their names, within a bound.
 */
sealed interface FrameListing {
    /** Frames listed. */
    int count();

    /** The file name of frame {@code frame}, in play order. */
    String name(int frame);

    /** The image kind of every frame. */
    FrameImage kind();

    /**
     * Frames numbered {@code first} to {@code first + count - 1} without a gap: {@code prefix}, the number (zero-padded
     * to {@code width} digits; 0: not padded), {@code suffix} (with the file ending).
     */
    record Numbered(String prefix, int width, String suffix, long first, int count, FrameImage kind) implements FrameListing {
        @Override
        public String name(int frame) {
            String number = Long.toString(first + frame);
            return prefix + (number.length() < width ? "0".repeat(width - number.length()) : "") + number + suffix;
        }
    }

    /** Frames by name, when they are not numbered without a gap. */
    record Named(List<String> names, FrameImage kind) implements FrameListing {
        @Override
        public int count() { return names.size(); }

        @Override
        public String name(int frame) {
            return names.get(frame);
        }
    }

    /**
     * The frames of {@code folder}: remembered from an earlier listing while the folder's modification time is the same,
     * else listed (names only: no frame opened).
     *
     * @throws VideoException when it is missing or unreadable, holds no JPEG or PNG frames, or mixes several names or
     *                        both kinds
     */
    static FrameListing of(Path folder) {
        String path = folder.toString();
        Listings.Stamp stamp;
        try {
            BasicFileAttributes attributes = Files.readAttributes(folder, BasicFileAttributes.class);
            if (!attributes.isDirectory()) {
                throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.NOT_FOUND, "not a folder of frames");
            }
            stamp = new Listings.Stamp(attributes.lastModifiedTime(), attributes.fileKey());
        } catch (NoSuchFileException e) {
            throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.NOT_FOUND, "no such folder", e);
        } catch (IOException e) {
            throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.IO_ERROR, "cannot read: " + e, e);
        }
        FrameListing known = Listings.get(folder, stamp);
        if (known != null) {
            return known;
        }
        long listedAtMillis = System.currentTimeMillis();
        FrameListing listed = list(folder);
        // A folder changed within a tick of its clock after being listed would keep its time: one changed that recently
        // is listed again next time.
        if (FileStamp.settled(stamp.modified().toMillis(), listedAtMillis)) {
            Listings.put(folder, stamp, listed);
        }
        return listed;
    }

    /** Forgets {@code folder}'s listing: a frame in it was gone, so it is listed again next time. */
    static void forget(Path folder) {
        Listings.remove(folder);
    }

    /** Listings remembered, least recently used first; bounded by folders and by the names kept. */
    final class Listings {
        static final int MAX_FOLDERS = 100_000;
        static final int MAX_NAMES = 1_000_000;
        /** How long after its last change a folder's listing is not kept: coarse file-system clocks tick in seconds. */
        private static final Map<Path, Remembered> BY_FOLDER = new LinkedHashMap<>(64, 0.75f, true);
        private static long names;

        /** What tells a folder unchanged: its modification time, and its identity (a folder put in its place). */
        record Stamp(FileTime modified, Object fileKey) {
        }

        private record Remembered(Stamp stamp, FrameListing listing) {
            int weight() {
                return listing instanceof Named named ? named.count() : 0;
            }
        }

        private Listings() {
        }

        static synchronized FrameListing get(Path folder, Stamp stamp) {
            Remembered r = BY_FOLDER.get(folder);
            return r != null && r.stamp().equals(stamp) ? r.listing() : null;
        }

        static synchronized void remove(Path folder) {
            Remembered old = BY_FOLDER.remove(folder);
            names -= old == null ? 0 : old.weight();
        }

        static synchronized void put(Path folder, Stamp stamp, FrameListing listing) {
            Remembered added = new Remembered(stamp, listing);
            if (added.weight() > MAX_NAMES / 4) {
                remove(folder); // too many names to keep: listed again next time
                return;
            }
            Remembered old = BY_FOLDER.put(folder, added);
            names += added.weight() - (old == null ? 0 : old.weight());
            Iterator<Remembered> eldest = BY_FOLDER.values().iterator();
            while ((BY_FOLDER.size() > MAX_FOLDERS || names > MAX_NAMES) && eldest.hasNext()) {
                names -= eldest.next().weight();
                eldest.remove();
            }
        }
    }

    /** A frame file's name taken apart: the frames of one stream share a shape, the name without its number. */
    record Entry(String name, String prefix, String digits, String suffix, long number, String shape) {
        private static final Pattern NUMBERED = Pattern.compile("^(.*?)(\\d+)([^\\d]*)$");

        static Entry of(String name) {
            int dot = name.lastIndexOf('.');
            String stem = name.substring(0, dot);
            Matcher m = NUMBERED.matcher(stem);
            if (!m.matches()) {
                return new Entry(name, stem, "", name.substring(dot), -1, stem);
            }
            String digits = m.group(2);
            // Past 18 digits a long overflows; such names still sort, by name.
            return new Entry(name, m.group(1), digits, m.group(3) + name.substring(dot),
                    digits.length() > 18 ? Long.MAX_VALUE : Long.parseLong(digits), m.group(1) + "#" + m.group(3));
        }
    }

    private static FrameListing list(Path folder) {
        String path = folder.toString();
        Map<String, List<Entry>> byShape = new LinkedHashMap<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(folder)) {
            for (Path child : stream) {
                String name = child.getFileName().toString();
                if (FrameImage.of(name) != null) {
                    Entry entry = Entry.of(name);
                    byShape.computeIfAbsent(entry.shape(), k -> new ArrayList<>()).add(entry);
                }
            }
        } catch (NoSuchFileException e) {
            throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.NOT_FOUND, "no such folder", e);
        } catch (NotDirectoryException e) {
            throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.NOT_FOUND, "not a folder of frames", e);
        } catch (AccessDeniedException e) {
            throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.IO_ERROR, "permission denied", e);
        } catch (IOException e) {
            throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.IO_ERROR, "cannot list: " + e, e);
        }
        if (byShape.isEmpty()) {
            throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.EMPTY_FILE,
                    "a folder with no frames in it (expected: .jpg, .jpeg or .png images, one a frame)");
        }
        List<Entry> entries = pick(path, byShape);
        entries.sort(Comparator.comparingLong(Entry::number).thenComparing(Entry::name));
        FrameImage kind = FrameImage.of(entries.getFirst().name());
        for (Entry entry : entries) {
            if (FrameImage.of(entry.name()) != kind) {
                throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.UNSUPPORTED_CODEC,
                        "both JPEG and PNG frames (" + entries.getFirst().name() + ", " + entry.name()
                                + "; expected: one kind a folder)");
            }
        }
        FrameListing numbered = numbered(entries, kind);
        return numbered != null ? numbered : new Named(entries.stream().map(Entry::name).toList(), kind);
    }

    /** The folder's frame files, by name shape; the {@code img} ones when there are several shapes. */
    private static List<Entry> pick(String path, Map<String, List<Entry>> byShape) {
        if (byShape.size() == 1) {
            return new ArrayList<>(byShape.values().iterator().next());
        }
        List<String> images = byShape.keySet().stream().filter(n -> n.toLowerCase(Locale.ROOT).startsWith("img")).toList();
        if (images.size() == 1) {
            return new ArrayList<>(byShape.get(images.getFirst()));
        }
        throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.UNSUPPORTED_CODEC,
                "frames of " + byShape.size() + " names " + byShape.keySet()
                        + " (expected: one name with a frame number, or mmaction2's img_ among them)");
    }

    /** {@code entries} (sorted) as a pattern, when they are numbered without a gap, all padded alike or none; else null. */
    private static FrameListing numbered(List<Entry> entries, FrameImage kind) {
        Entry first = entries.getFirst();
        if (first.number() < 0 || first.number() > Long.MAX_VALUE - entries.size()) {
            return null;
        }
        boolean padded = true;
        boolean unpadded = true;
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            if (e.number() != first.number() + i || !e.prefix().equals(first.prefix()) || !e.suffix().equals(first.suffix())) {
                return null;
            }
            padded &= e.digits().length() == first.digits().length();
            unpadded &= e.digits().equals(Long.toString(e.number()));
        }
        if (!padded && !unpadded) {
            return null;
        }
        return new Numbered(first.prefix(), padded ? first.digits().length() : 0, first.suffix(), first.number(),
                entries.size(), kind);
    }
}
