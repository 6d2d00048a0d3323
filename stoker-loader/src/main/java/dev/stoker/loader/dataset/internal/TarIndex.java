package dev.stoker.loader.dataset.internal;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The regular files of a tar archive and where each one's bytes lie, read from its headers alone: what lets a member
 * of a WebDataset shard be read in place, at random, as a file is. Reads POSIX ustar (with its name prefix), pax
 * extended headers (long names, sizes over 8 GiB) and GNU long names and base-256 sizes, which is what GNU tar,
 * Python's {@code tarfile} and WebDataset's {@code TarWriter} write. Folders, links and devices are not members; a name
 * written twice is the later member, as {@code tar -x} would leave it.
 *
 * @param archive   the archive file
 * @param sizeBytes its size when read
 * @param members   its regular files in archive order
 * @param complete  whether it ends with the end-of-archive blocks; one without them was cut short (or is being written)
 */
public record TarIndex(Path archive, long sizeBytes, List<Member> members, boolean complete) {
    static final int BLOCK = 512;
    /** Longer names and pax headers are refused: a damaged or hostile archive, not a dataset. */
    static final int MAX_EXTENSION_BYTES = 1 << 20;

    /**
     * One regular file of the archive.
     *
     * @param name      its name in the archive, without a leading {@code ./} or {@code /}
     * @param offset    where its bytes start in the archive
     * @param sizeBytes how many bytes it has
     */
    public record Member(String name, long offset, long sizeBytes) {
        public Member {
            Objects.requireNonNull(name, "name");
        }

        /** Whether the archive holds all of its bytes (a download cut short does not). */
        public boolean within(long archiveBytes) {
            return offset + sizeBytes <= archiveBytes;
        }
    }

    public TarIndex {
        Objects.requireNonNull(archive, "archive");
        members = List.copyOf(members);
    }

    /**
     * Reads the headers of {@code archive}.
     *
     * @throws IOException if it cannot be read, or is not a tar archive or is damaged (the message names the byte)
     */
    public static TarIndex read(Path archive) throws IOException {
        try (FileChannel channel = FileChannel.open(archive, StandardOpenOption.READ)) {
            return read(archive, channel);
        }
    }

    private static TarIndex read(Path archive, FileChannel channel) throws IOException {
        long size = channel.size();
        Map<String, Member> members = new LinkedHashMap<>();
        ByteBuffer buffer = ByteBuffer.allocate(BLOCK);
        byte[] header = buffer.array();
        String longName = null;
        String paxPath = null;
        long paxSize = -1;
        long position = 0;
        boolean complete = false;
        // An archive cut short (a copy interrupted) ends where its next header would be: what came before is whole.
        while (size - position >= BLOCK) {
            buffer.clear();
            readFully(channel, buffer, position);
            if (isZero(header)) {
                complete = true;
                break; // the end-of-archive blocks; what may follow them is not the archive's
            }
            checkChecksum(archive, position, header);
            long dataSize = number(archive, position, header, 124, 12, "size");
            byte type = header[156];
            long data = position + BLOCK;
            if (type == 'x' || type == 'L') {
                if (data + dataSize > size) {
                    break; // cut inside an extended header: the member it names is gone
                }
                byte[] text = extension(archive, channel, position, data, dataSize);
                if (type == 'L') {
                    longName = cString(text, 0, text.length);
                } else {
                    Map<String, byte[]> records = paxRecords(archive, position, text);
                    if (records.keySet().stream().anyMatch(k -> k.startsWith("GNU.sparse."))) {
                        throw sparse(archive, position);
                    }
                    // pax values are UTF-8, unless the header says its names are raw bytes (a Latin-1 name).
                    boolean binary = "BINARY".equals(ascii(records.get("hdrcharset")));
                    if (records.containsKey("path")) {
                        paxPath = new String(records.get("path"),
                                binary ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
                    }
                    if (records.containsKey("size")) {
                        paxSize = paxNumber(archive, position, ascii(records.get("size")));
                    }
                }
                position = data + padded(dataSize);
                continue;
            }
            if (type == 'K' || type == 'g') {
                // A long link target; pax globals (a comment, a charset): nothing a member's place depends on.
                position = data + padded(dataSize);
                continue;
            }
            if (type == 'S') {
                throw sparse(archive, position);
            }
            long memberSize = paxSize >= 0 ? paxSize : dataSize;
            if (type == '0' || type == 0 || type == '7') {
                String name = paxPath != null ? paxPath : longName != null ? longName : headerName(header);
                String normalized = normalize(archive, position, name);
                if (!normalized.isEmpty()) {
                    members.remove(normalized);
                    members.put(normalized, new Member(normalized, data, memberSize));
                }
            }
            // Folders, links, devices: no bytes to read in place. Their data (if any) is skipped.
            longName = null;
            paxPath = null;
            paxSize = -1;
            position = data + padded(memberSize);
        }
        return new TarIndex(archive, size, new ArrayList<>(members.values()), complete);
    }

    /**
     * Whether all of {@code member} is there: its bytes within the archive, and, in an archive cut short (no
     * end-of-archive blocks), not of its last sample ({@link #sampleKey}), whose other members, such as a label written
     * after the video, may be what was cut away.
     */
    public boolean intact(Member member) {
        if (!member.within(sizeBytes)) {
            return false;
        }
        return complete || members.isEmpty() || !sampleKey(member.name()).equals(sampleKey(members.getLast().name()));
    }

    /**
     * WebDataset's sample key of a member: its name up to the first dot of its last part ({@code clips/k1.left.mp4}
     * is of the sample {@code clips/k1}).
     */
    public static String sampleKey(String member) {
        int slash = member.lastIndexOf('/');
        int dot = member.indexOf('.', slash + 1);
        return dot < 0 ? member : member.substring(0, dot);
    }

    /** Fills {@code buffer} from {@code position} on; the archive ending first is an {@link EOFException}. */
    static void readFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        while (buffer.hasRemaining()) {
            int read = channel.read(buffer, position + buffer.position());
            if (read < 0) {
                throw new EOFException("archive ended at byte " + (position + buffer.position()));
            }
        }
    }

    private static boolean isZero(byte[] block) {
        for (byte b : block) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    /** The header's checksum: its bytes summed with the checksum field as spaces (signed sums from old tars too). */
    private static void checkChecksum(Path archive, long position, byte[] header) throws IOException {
        long unsigned = 0;
        long signed = 0;
        for (int i = 0; i < BLOCK; i++) {
            int b = i >= 148 && i < 156 ? ' ' : header[i];
            unsigned += b & 0xff;
            signed += b;
        }
        long stored = number(archive, position, header, 148, 8, "checksum");
        if (stored != unsigned && stored != signed) {
            throw damaged(archive, position, "header checksum " + stored + ", but its bytes sum to " + unsigned
                    + " (not a tar archive, or a damaged one)");
        }
    }

    /** An octal field (spaces or NULs around it), or GNU's base-256 for sizes past what 11 octal digits hold. */
    private static long number(Path archive, long position, byte[] header, int offset, int length, String field)
            throws IOException {
        if ((header[offset] & 0x80) != 0) {
            if ((header[offset] & 0x40) != 0) {
                throw damaged(archive, position, field + " is negative");
            }
            long value = header[offset] & 0x3f;
            for (int i = offset + 1; i < offset + length; i++) {
                if (value > (Long.MAX_VALUE >> 8)) {
                    throw damaged(archive, position, field + " is too large");
                }
                value = (value << 8) | (header[i] & 0xff);
            }
            return value;
        }
        long value = 0;
        boolean digits = false;
        for (int i = offset; i < offset + length; i++) {
            int c = header[i];
            if (c == 0 || c == ' ') {
                if (digits) {
                    break;
                }
                continue;
            }
            if (c < '0' || c > '7' || value > (Long.MAX_VALUE >> 3)) {
                throw damaged(archive, position, field + " field is not an octal number (not a tar archive, or a"
                        + " damaged one)");
            }
            value = (value << 3) | (c - '0');
            digits = true;
        }
        return value;
    }

    private static byte[] extension(Path archive, FileChannel channel, long position, long data, long dataSize)
            throws IOException {
        if (dataSize > MAX_EXTENSION_BYTES) {
            throw damaged(archive, position, "an extended header of " + dataSize + " bytes (expected: at most "
                    + MAX_EXTENSION_BYTES + ")");
        }
        ByteBuffer bytes = ByteBuffer.allocate((int) dataSize);
        readFully(channel, bytes, data);
        return bytes.array();
    }

    /**
     * pax records: {@code "<length> <key>=<value>\n"}, the length counting the whole record in bytes; read on the bytes,
     * since a value may be no UTF-8 (a name under {@code hdrcharset=BINARY}).
     */
    private static Map<String, byte[]> paxRecords(Path archive, long position, byte[] bytes) throws IOException {
        Map<String, byte[]> records = new LinkedHashMap<>();
        int at = 0;
        while (at < bytes.length && bytes[at] != 0) {
            int space = at;
            while (space < bytes.length && bytes[space] != ' ') {
                space++;
            }
            int length;
            try {
                length = Integer.parseInt(new String(bytes, at, space - at, StandardCharsets.US_ASCII));
            } catch (NumberFormatException e) {
                throw damaged(archive, position, "a pax record without its length");
            }
            if (length <= space - at || at + length > bytes.length || bytes[at + length - 1] != '\n') {
                throw damaged(archive, position, "a pax record of length " + length + " that does not fit");
            }
            int equals = space + 1;
            while (equals < at + length - 1 && bytes[equals] != '=') {
                equals++;
            }
            if (equals == space + 1 || bytes[equals] != '=') {
                throw damaged(archive, position, "a pax record without key=value");
            }
            records.put(new String(bytes, space + 1, equals - space - 1, StandardCharsets.UTF_8),
                    java.util.Arrays.copyOfRange(bytes, equals + 1, at + length - 1));
            at += length;
        }
        return records;
    }

    private static String ascii(byte[] value) {
        return value == null ? null : new String(value, StandardCharsets.US_ASCII);
    }

    private static IOException sparse(Path archive, long position) {
        return damaged(archive, position, "a GNU sparse member, which cannot be read in place (write the archive"
                + " without --sparse)");
    }

    private static long paxNumber(Path archive, long position, String text) throws IOException {
        try {
            long value = Long.parseLong(text);
            if (value >= 0) {
                return value;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw damaged(archive, position, "pax size '" + text + "' (expected: a number 0+)");
    }

    /** ustar splits a long name into a prefix and a name; GNU tar's header has no prefix there (its magic differs). */
    private static String headerName(byte[] header) {
        String name = cString(header, 0, 100);
        boolean posix = header[257] == 'u' && header[258] == 's' && header[259] == 't' && header[260] == 'a'
                && header[261] == 'r' && header[262] == 0;
        if (posix && header[345] != 0) {
            return cString(header, 345, 155) + "/" + name;
        }
        return name;
    }

    private static String cString(byte[] bytes, int offset, int length) {
        int end = offset;
        while (end < offset + length && bytes[end] != 0) {
            end++;
        }
        return new String(bytes, offset, end - offset, StandardCharsets.UTF_8);
    }

    /**
     * The name as a path would spell it: {@code ./a//b/./c.mp4} is {@code a/b/c.mp4} (a member is found by the path
     * {@code <archive>/<name>}, which Java's paths normalize so); a name that climbs out ({@code ..}) is refused, and a
     * folder's ({@code a/}) is empty.
     */
    private static String normalize(Path archive, long position, String name) throws IOException {
        if (name.endsWith("/")) {
            return "";
        }
        StringBuilder normal = new StringBuilder(name.length());
        for (String part : name.split("/")) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (part.equals("..")) {
                throw damaged(archive, position, "member name '" + name + "' climbs out of the archive");
            }
            normal.append(normal.isEmpty() ? "" : "/").append(part);
        }
        return normal.toString();
    }

    private static long padded(long bytes) {
        return (bytes + BLOCK - 1) / BLOCK * BLOCK;
    }

    private static IOException damaged(Path archive, long position, String what) {
        return new IOException(archive + ": the tar header at byte " + position + ": " + what);
    }
}
