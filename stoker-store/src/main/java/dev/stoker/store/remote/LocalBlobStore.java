package dev.stoker.store.remote;

import dev.stoker.store.remote.internal.ByteRange;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/** A local folder as a {@link BlobStore}: positional reads, puts by temporary file and rename. */
public final class LocalBlobStore implements BlobStore {
    private final Path root;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong bytesRead = new AtomicLong();

    public LocalBlobStore(Path root) {
        this.root = root;
    }

    public Path root() { return root; }

    @Override
    public String location() { return root.toString(); }

    @Override
    public List<String> list() throws IOException {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).map(p -> root.relativize(p).toString().replace('\\', '/'))
                    .sorted().toList();
        }
    }

    @Override
    public long size(String key) throws IOException {
        return Files.size(root.resolve(key));
    }

    @Override
    public byte[] read(String key, ByteRange range) throws IOException {
        requests.incrementAndGet();
        Path file = root.resolve(key);
        ByteBuffer buffer = ByteBuffer.allocate(Math.toIntExact(range.length()));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            while (buffer.hasRemaining()) {
                if (channel.read(buffer, range.offset() + buffer.position()) < 0) {
                    throw new EOFException(file + ": " + channel.size() + " bytes, range " + range.header() + " runs past the end");
                }
            }
        }
        bytesRead.addAndGet(range.length());
        return buffer.array();
    }

    @Override
    public void put(String key, Path file) throws IOException {
        Path target = root.resolve(key);
        Files.createDirectories(target.getParent());
        Path temp = target.resolveSibling("." + target.getFileName() + ".tmp");
        Files.copy(file, temp, StandardCopyOption.REPLACE_EXISTING);
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    @Override
    public boolean putIfAbsent(String key, byte[] bytes) throws IOException {
        Path target = root.resolve(key);
        Files.createDirectories(target.getParent());
        Path temp = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".tmp");
        try {
            Files.write(temp, bytes);
            // A hard link fails when the target exists: an atomic create of complete bytes, as If-None-Match is.
            Files.createLink(target, temp);
            return true;
        } catch (FileAlreadyExistsException e) {
            return false;
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    @Override
    public void delete(String key) throws IOException {
        Files.deleteIfExists(root.resolve(key));
    }

    @Override
    public Stats stats() {
        return new Stats(requests.get(), 0, bytesRead.get());
    }

    @Override
    public void close() {
    }
}
