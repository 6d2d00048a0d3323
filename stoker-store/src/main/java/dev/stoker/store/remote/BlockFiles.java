package dev.stoker.store.remote;

import dev.stoker.pipeline.internal.PrivateFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * The block cache's files on disk: {@code <blocks>/<object>/<index>.blk}, each block's bytes followed by their CRC32C.
 * A block is written to a {@code .part} file and renamed into place, so a crash leaves a {@code .part}, never a block
 * that looks whole.
 */
final class BlockFiles {
    static final int CRC_BYTES = 4;
    private static final String BLOCK_SUFFIX = ".blk";
    private static final String PART_SUFFIX = ".part";

    /** A block file a previous run stored. */
    record Found(Path file, String object, long index, long bytes) {
    }

    private BlockFiles() {
    }

    static Path path(Path blocksDir, String object, long index) {
        return blocksDir.resolve(object).resolve(index + BLOCK_SUFFIX);
    }

    /** Deletes the {@code .part} files a crashed run left and lists the blocks stored, oldest written first. */
    static List<Found> scan(Path blocksDir) throws IOException {
        record Written(Path file, long bytes, FileTime time) {
        }
        List<Written> written = new ArrayList<>();
        try (Stream<Path> files = Files.walk(blocksDir, 2)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                if (name.endsWith(PART_SUFFIX)) {
                    Files.deleteIfExists(file); // a download a crash interrupted: never a block
                } else if (name.endsWith(BLOCK_SUFFIX) && Files.isRegularFile(file)) {
                    written.add(new Written(file, Files.size(file), Files.getLastModifiedTime(file)));
                }
            }
        }
        written.sort(Comparator.comparing(Written::time));
        List<Found> found = new ArrayList<>(written.size());
        for (Written w : written) {
            String name = w.file().getFileName().toString();
            long index;
            try {
                index = Long.parseLong(name.substring(0, name.length() - BLOCK_SUFFIX.length()));
            } catch (NumberFormatException e) {
                continue; // not one of ours
            }
            found.add(new Found(w.file(), w.file().getParent().getFileName().toString(), index, w.bytes()));
        }
        return found;
    }

    /** Writes {@code data} and its CRC32C to a {@code .part} file ({@code 0600}), then renames it to {@code file}. */
    static void write(Path file, byte[] data) throws IOException {
        PrivateFiles.createFolders(file.getParent());
        // Named by thread: two readers re-downloading one damaged block never write the same file.
        Path part = file.resolveSibling(file.getFileName() + "." + Thread.currentThread().threadId() + PART_SUFFIX);
        CRC32C crc = new CRC32C();
        crc.update(data);
        try (FileChannel out = PrivateFiles.open(part, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer trailer = ByteBuffer.allocate(CRC_BYTES).order(ByteOrder.BIG_ENDIAN).putInt((int) crc.getValue()).flip();
            ByteBuffer body = ByteBuffer.wrap(data);
            while (body.hasRemaining()) {
                out.write(body);
            }
            while (trailer.hasRemaining()) {
                out.write(trailer);
            }
        }
        try {
            Files.move(part, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(part, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * The block's bytes when its file is there, {@code length} long and matches its CRC32C; null when it is gone (its
     * download failed elsewhere, or it was deleted behind the cache's back) or damaged.
     */
    static byte[] readVerified(Path file, long length) throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return null;
        }
        if (bytes.length < CRC_BYTES) {
            return null;
        }
        int dataLength = bytes.length - CRC_BYTES;
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, dataLength);
        int stored = ByteBuffer.wrap(bytes, dataLength, CRC_BYTES).order(ByteOrder.BIG_ENDIAN).getInt();
        return stored == (int) crc.getValue() && dataLength == length ? Arrays.copyOf(bytes, dataLength) : null;
    }
}
