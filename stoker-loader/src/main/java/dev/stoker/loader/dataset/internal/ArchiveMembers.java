package dev.stoker.loader.dataset.internal;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Files inside tar archives, addressed as paths: {@code /data/train-0001.tar/abc.mp4} is the member {@code abc.mp4}
 * of the archive {@code /data/train-0001.tar}. A dataset of WebDataset shards is a list of such paths, so every part
 * that names a video by its path (the failures, the quarantine, {@code batch.paths}, resume, a child JVM's fetch) works
 * on members unchanged, and only what reads bytes or stamps a file asks here.
 *
 * <p>An archive's index (its headers) is read once and remembered while its size and modification time stand; one
 * changed is read again, and one changed in the last seconds is read every time ({@link FileStamp#settled}).
 */
public final class ArchiveMembers {
    /**
     * Members remembered over all archives, bounding the heap (about 135 bytes each: 270 MB at most); a dataset of more
     * reads a forgotten archive's headers again when it needs one (about a millisecond for 1,000 members, cached).
     */
    static final int MAX_REMEMBERED_MEMBERS = 2_000_000;

    /**
     * A member found, with what identifies it now.
     *
     * @param archive      the archive file
     * @param member       the member
     * @param archiveStamp the archive's size and modification time when found
     * @param intact       whether all of it is there ({@link TarIndex#intact}: not cut away with the archive's end)
     */
    public record Member(Path archive, TarIndex.Member member, FileStamp archiveStamp, boolean intact) {
        /** A member's stamp: its size, and its archive's time (a member changes only with its archive). */
        public FileStamp stamp() {
            return new FileStamp(member.sizeBytes(), archiveStamp.mtimeMillis());
        }
    }

    private record Indexed(FileStamp stamp, TarIndex index, Map<String, TarIndex.Member> byName) {
    }

    private static final Map<Path, Indexed> REMEMBERED = new LinkedHashMap<>(16, 0.75f, true);
    private static long rememberedMembers;

    private ArchiveMembers() {
    }

    /** Whether a file of this name is read as a tar archive: {@code .tar}, any case. */
    public static boolean isArchiveName(String fileName) {
        return fileName.toLowerCase(Locale.ROOT).endsWith(".tar") && !fileName.startsWith(".");
    }

    /**
     * The member {@code path} names, or empty when no folder above it is a tar archive's file (an ordinary path: the
     * look is at names first, so it costs an ordinary path no system call).
     *
     * @throws NoSuchFileException if the archive has no member of that name
     * @throws IOException         if the archive cannot be read, or is damaged
     */
    public static Optional<Member> find(Path path) throws IOException {
        for (Path archive = path.getParent(); archive != null; archive = archive.getParent()) {
            Path name = archive.getFileName();
            if (name == null || !isArchiveName(name.toString())) {
                continue;
            }
            BasicFileAttributes attributes;
            try {
                attributes = Files.readAttributes(archive, BasicFileAttributes.class);
            } catch (IOException e) {
                continue; // not there: an ordinary path, whose read says what is missing
            }
            if (!attributes.isRegularFile()) {
                continue; // a folder named x.tar: its files are ordinary files
            }
            FileStamp stamp = new FileStamp(attributes.size(), attributes.lastModifiedTime().toMillis());
            String memberName = archive.relativize(path).toString();
            Indexed indexed = indexed(archive, stamp);
            TarIndex.Member member = indexed.byName.get(memberName);
            if (member == null) {
                throw new NoSuchFileException(path.toString(), null, "no member " + memberName + " in the tar archive "
                        + archive);
            }
            return Optional.of(new Member(archive, member, stamp, indexed.index.intact(member)));
        }
        return Optional.empty();
    }

    /**
     * The bytes of {@code file}: a member of a tar archive ({@link #find}), else the file itself.
     *
     * @throws EOFException if the archive ends before the member does (a download cut short)
     */
    public static byte[] readAllBytes(Path file) throws IOException {
        Optional<Member> found = find(file);
        if (found.isEmpty()) {
            return Files.readAllBytes(file);
        }
        Member m = found.get();
        TarIndex.Member member = m.member();
        if (member.sizeBytes() > Integer.MAX_VALUE - 64) {
            throw new IOException(file + ": a member of " + member.sizeBytes() + " bytes (expected: under 2 GiB)");
        }
        if (!m.intact()) {
            throw truncated(file, m);
        }
        try (FileChannel channel = FileChannel.open(m.archive(), StandardOpenOption.READ)) {
            return read(channel, member);
        } catch (EOFException e) {
            // Cut since it was indexed: named as a member whose archive ended early.
            throw new EOFException(file + ": the archive ended while this member was read (" + e.getMessage() + ")");
        }
    }

    /** The bytes of {@code member}, read through {@code channel}, its archive's (open once for many small members). */
    public static byte[] read(FileChannel channel, TarIndex.Member member) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(Math.toIntExact(member.sizeBytes()));
        TarIndex.readFully(channel, bytes, member.offset());
        return bytes.array();
    }

    /** Why a member that is not {@link Member#intact} cannot be read, as the exception a cut-short file gives. */
    public static EOFException truncated(Path file, Member m) {
        TarIndex.Member member = m.member();
        if (!member.within(m.archiveStamp().sizeBytes())) {
            return new EOFException(file + ": the archive ends " + (m.archiveStamp().sizeBytes() - member.offset())
                    + " bytes into this member of " + member.sizeBytes() + " bytes (a copy cut short?)");
        }
        return new EOFException(file + ": the archive is cut short in this member's sample (no end-of-archive blocks"
                + " after it), so the sample's other members, such as its .cls, may be gone");
    }

    /**
     * The members of {@code archive}, in archive order, remembered while its stamp stands.
     *
     * @throws IOException if it cannot be read, or is not a tar archive or is damaged (the message names the byte)
     */
    public static TarIndex index(Path archive) throws IOException {
        return indexed(archive, FileStamp.of(archive)).index;
    }

    private static Indexed indexed(Path archive, FileStamp stamp) throws IOException {
        synchronized (REMEMBERED) {
            Indexed known = REMEMBERED.get(archive);
            if (known != null && known.stamp.equals(stamp)) {
                return known;
            }
        }
        long readAt = System.currentTimeMillis(); // before the read: a write during it must not look settled
        TarIndex index = TarIndex.read(archive);
        Map<String, TarIndex.Member> byName = new HashMap<>(index.members().size() * 2);
        for (TarIndex.Member member : index.members()) {
            byName.put(member.name(), member);
        }
        Indexed indexed = new Indexed(stamp, index, byName);
        if (FileStamp.settled(stamp.mtimeMillis(), readAt) && stamp.sizeBytes() == index.sizeBytes()) {
            remember(archive, indexed);
        }
        return indexed;
    }

    private static void remember(Path archive, Indexed indexed) {
        synchronized (REMEMBERED) {
            Indexed replaced = REMEMBERED.put(archive, indexed);
            rememberedMembers += indexed.byName.size() - (replaced == null ? 0 : replaced.byName.size());
            var oldest = REMEMBERED.entrySet().iterator();
            while (rememberedMembers > MAX_REMEMBERED_MEMBERS && oldest.hasNext()) {
                var entry = oldest.next();
                if (entry.getKey().equals(archive)) {
                    continue;
                }
                rememberedMembers -= entry.getValue().byName.size();
                oldest.remove();
            }
        }
    }
}
