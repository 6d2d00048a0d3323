package dev.stoker.store;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.dataset.internal.BracePattern;
import dev.stoker.store.format.internal.ShardFormat;
import dev.stoker.store.internal.SampleInfo;
import dev.stoker.store.internal.ShardException;
import dev.stoker.store.prefetch.internal.PageCache;
import dev.stoker.store.remote.BlobStore;
import dev.stoker.store.remote.BlockCache;
import dev.stoker.store.remote.RemoteVideos;
import dev.stoker.store.shard.Manifest;
import dev.stoker.store.shard.ShardFile;
import dev.stoker.store.shard.internal.ShardLayout;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An ingested dataset: the folder {@code stoker ingest} wrote, opened for reading. Shards are
 * memory-mapped; {@link #sample} answers from the manifest without touching payloads, and
 * {@link #newReader()} gives per-thread {@link ClipReader}s.
 *
 * <pre>{@code
 * try (ShardDataset shards = ShardDataset.open(dest); ClipReader reader = shards.newReader()) {
 *     SampleInfo s = shards.sample(7);
 *     reader.read(7, new ClipRequest(ClipSpec.frames(0.5, 16, 2), Resize.centerCrop(112, 112, 112), dst));
 * }
 * }</pre>
 *
 * <p>Thread-safe; close it after every reader is closed (the mappings go away with it).
 */
public final class ShardDataset implements AutoCloseable {
    /** The manifest at the folder's root, written last by an ingest: its presence marks a complete ingest. */
    public static final String MANIFEST = "stoker-shards.json";

    /** The folder; null for a remote dataset. */
    private final Path root;
    private final String location;
    /** The object store remote shards are read from, owned; null for a local folder. */
    private final BlobStore store;
    /** The local block cache remote shards are read through, owned; null for none. */
    private final BlockCache cache;
    private final Manifest manifest;
    private final ShardFormat format;
    private final Arena arena;
    private final ShardFile[] shards;
    private final String[] missing;
    private final SampleInfo[] samples;
    private final Verification verification;

    private ShardDataset(Path root, String location, BlobStore store, BlockCache cache, Manifest manifest, Arena arena,
                         ShardFile[] shards, String[] missing, Verification verification) {
        this.root = root;
        this.location = location;
        this.store = store;
        this.cache = cache;
        this.verification = verification;
        this.manifest = manifest;
        this.format = ShardFormat.named(manifest.format());
        this.arena = arena;
        this.shards = shards;
        this.missing = missing;
        this.samples = new SampleInfo[manifest.samples().size()];
        for (int i = 0; i < samples.length; i++) {
            Manifest.SampleRow row = manifest.samples().get(i);
            samples[i] = new SampleInfo(i, row.label(), manifest.classNames().get(row.label()), row.frames(), row.fps(),
                    row.durationSeconds(), row.width(), row.height(), Path.of(row.source()), row.sourceIndex(),
                    manifest.shards().get(row.shard()).file(), row.record(), Optional.ofNullable(row.text()));
        }
    }

    /** True when {@code path} is a folder holding a complete ingest (its manifest). */
    public static boolean isShardDataset(Path path) {
        return path != null && Files.isRegularFile(path.resolve(MANIFEST));
    }

    /**
     * True when {@code location} holds a complete ingest: a local folder as {@link #isShardDataset(Path)}, a remote
     * one when its manifest object exists (one HEAD).
     */
    public static boolean isShardDataset(String location, URI s3Endpoint) throws IOException {
        if (BlobStore.isRemote(location) ? RemoteVideos.isArchivePattern(location)
                : !Files.exists(Path.of(location)) && BracePattern.isPattern(location)) {
            return false; // train-{0..9}.tar names WebDataset archives, not a folder of ingested shards
        }
        if (!BlobStore.isRemote(location)) {
            return isShardDataset(Path.of(location));
        }
        try (BlobStore store = BlobStore.open(location, s3Endpoint)) {
            store.size(MANIFEST);
            return true;
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    /**
     * Opens an ingested folder whose readers check each packet's checksum the first time they read it
     * ({@link Verification#FIRST_READ}).
     *
     * @throws IOException when the manifest is missing or unreadable, or from another format version
     */
    public static ShardDataset open(Path dest) throws IOException {
        return open(dest, Verification.FIRST_READ);
    }

    /**
     * Opens an ingested folder: reads the manifest and maps the shards (their indexes are read on
     * first use). A damaged or missing shard does not fail the open; reading its samples does.
     * {@code verification} says when readers check the checksums of the packets they read.
     *
     * @throws IOException when the manifest is missing or unreadable, or from another format version
     */
    public static ShardDataset open(Path dest, Verification verification) throws IOException {
        Objects.requireNonNull(verification, "verification");
        Path file = dest.resolve(MANIFEST);
        if (!Files.isRegularFile(file)) {
            // Named by the folder the caller gave (the manifest's name is in the reason): each input once.
            throw new NoSuchFileException(dest.toString(), null,
                    "no " + MANIFEST + " (expected: a folder written by a finished stoker ingest)");
        }
        byte[] json;
        try {
            json = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IOException(file + ": unreadable manifest: " + e.getMessage(), e);
        }
        Manifest manifest = checkedManifest(file.toString(), json);
        Arena arena = Arena.ofShared();
        ShardFile[] shards = new ShardFile[manifest.shards().size()];
        String[] missing = new String[shards.length];
        try {
            for (int s = 0; s < shards.length; s++) {
                Path shard = dest.resolve(manifest.shards().get(s).file());
                try {
                    shards[s] = ShardFile.map(shard, arena);
                } catch (IOException e) {
                    missing[s] = e instanceof NoSuchFileException ? "the file is missing" : String.valueOf(e);
                }
            }
            return new ShardDataset(dest, dest.toString(), null, null, manifest, arena, shards, missing, verification);
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    /**
     * Opens an ingested dataset at {@code location}: a local folder, {@code s3://bucket/prefix} ({@code s3Endpoint}
     * for S3 compatibles, null for AWS) or an {@code http(s)://} folder URL ending in {@code /}. A remote dataset
     * reads its manifest once and each clip's packets with ranged GETs (one request per run of adjacent GOPs); its
     * packets are checked on every read, since every read downloads them anew.
     *
     * @throws IOException when the manifest is missing or unreadable, or from another format version
     */
    public static ShardDataset open(String location, URI s3Endpoint, Verification verification) throws IOException {
        return open(location, s3Endpoint, verification, null);
    }

    /**
     * {@link #open(String, URI, Verification)} reading remote shards through a local block cache ({@code cache};
     * null: none; ignored for a local folder): a second epoch or a rerun reads the blocks it holds from disk.
     *
     * @throws IOException also when the cache folder cannot be opened (made, or locked for this process)
     */
    public static ShardDataset open(String location, URI s3Endpoint, Verification verification, BlockCache.Settings cache)
            throws IOException {
        if (!BlobStore.isRemote(location)) {
            return open(Path.of(location), verification);
        }
        BlobStore store = BlobStore.open(location, s3Endpoint);
        try {
            return open(store, verification, cache);
        } catch (IOException | RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /** {@link #open(String, URI, Verification)} on an opened store, which the dataset then owns and closes. */
    public static ShardDataset open(BlobStore store, Verification verification) throws IOException {
        return open(store, verification, null);
    }

    /**
     * {@link #open(BlobStore, Verification)} through a block cache ({@code cacheSettings}; null: none), which the
     * dataset opens and closes; the store is owned only once this returns.
     */
    public static ShardDataset open(BlobStore store, Verification verification, BlockCache.Settings cacheSettings)
            throws IOException {
        Objects.requireNonNull(verification, "verification");
        String file = store.location() + "/" + MANIFEST;
        byte[] json;
        try {
            json = store.readAll(MANIFEST);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(store.location(), null,
                    "no " + MANIFEST + " (expected: a folder written by a finished stoker ingest)");
        }
        Manifest manifest = checkedManifest(file, json);
        BlockCache cache = cacheSettings == null ? null : BlockCache.open(cacheSettings);
        ShardFile[] shards = new ShardFile[manifest.shards().size()];
        for (int s = 0; s < shards.length; s++) {
            ShardFile.Summary summary = manifest.shards().get(s);
            shards[s] = ShardFile.remote(store, summary.file(), summary.fileBytes(), cache,
                    Integer.toHexString(summary.indexCrc32c()));
        }
        return new ShardDataset(null, store.location(), store, cache, manifest, Arena.ofShared(), shards,
                new String[shards.length], verification);
    }

    /** The manifest {@code json} of {@code file}, parsed and checked: this format version, every row pointing somewhere. */
    private static Manifest checkedManifest(String file, byte[] json) throws IOException {
        Manifest manifest;
        try {
            manifest = Manifest.parse(json);
        } catch (IOException e) {
            throw new IOException(file + ": unreadable manifest: " + e.getMessage(), e);
        }
        if (manifest.formatVersion() != ShardLayout.FORMAT_VERSION) {
            throw new IOException(file + ": format version " + manifest.formatVersion() + " (expected: "
                    + ShardLayout.FORMAT_VERSION + "; ingest again with this Stoker)");
        }
        checkRows(file, manifest);
        return manifest;
    }

    /** Every sample row points at a listed shard, a record and a class, or the open fails naming the row. */
    private static void checkRows(String file, Manifest manifest) throws IOException {
        if (manifest.samples() == null || manifest.shards() == null || manifest.classNames() == null) {
            throw new IOException(file + ": unreadable manifest: no samples, shards or classNames");
        }
        for (int i = 0; i < manifest.samples().size(); i++) {
            Manifest.SampleRow row = manifest.samples().get(i);
            if (row.shard() < 0 || row.shard() >= manifest.shards().size() || row.record() < 0 || row.label() < 0
                    || row.label() >= manifest.classNames().size() || row.source() == null) {
                throw new IOException(file + ": sample " + i + ": shard " + row.shard() + ", record " + row.record()
                        + ", label " + row.label() + " (expected: shard 0.." + (manifest.shards().size() - 1)
                        + ", record 0+, label 0.." + (manifest.classNames().size() - 1) + ")");
            }
        }
    }

    /** Number of samples (bad sources excluded). */
    public int size() { return samples.length; }

    /** Sample {@code index}, {@code 0..size()-1}. */
    public SampleInfo sample(int index) {
        if (index < 0 || index >= samples.length) {
            throw new IndexOutOfBoundsException("sample: " + index + " (expected: 0.." + (samples.length - 1) + ")");
        }
        return samples[index];
    }

    /** Every sample, in order. */
    public List<SampleInfo> samples() {
        return List.of(samples);
    }

    /** Label {@code i} stands for {@code classNames().get(i)}. */
    public List<String> classNames() { return manifest.classNames(); }

    /** The options the shards were written with (format, size, fps, GOP, shard size). */
    public IngestOptions options() { return manifest.options(); }

    /** When readers check packet checksums. */
    public Verification verification() { return verification; }

    /** The folder; null for a remote dataset ({@link #location()}). */
    public Path root() { return root; }

    /** Where the dataset lives: the folder, or its {@code s3://} or {@code http(s)://} location. */
    public String location() { return location; }

    /** Whether the shards are read with ranged GETs from object storage or HTTP rather than mapped. */
    public boolean isRemote() {
        return store != null;
    }

    /** Requests, retries and bytes received so far (a remote dataset's; zeros for a local one). */
    public BlobStore.Stats remoteStats() {
        return store == null ? new BlobStore.Stats(0, 0, 0) : store.stats();
    }

    /** The block cache remote shards are read through; null when there is none (or the dataset is local). */
    public BlockCache blockCache() { return cache; }

    /** The most payload bytes any one sample's record holds: the most one sample's read can span. */
    public long maxSamplePayloadBytes() {
        long max = 0;
        for (Manifest.SampleRow row : manifest.samples()) {
            max = Math.max(max, row.payloadBytes());
        }
        return max;
    }

    /** The manifest as read (shards, sample rows, failed sources). */
    public Manifest manifest() { return manifest; }

    /** A reader for one thread: one FFmpeg decoding thread, skipping frames nothing needs. */
    public ClipReader newReader() {
        return new ShardClipReader(this);
    }

    /**
     * The bytes reading {@code clips} of sample {@code index} touches, as one slice of its mapped shard
     * (from the first packet a read needs to the end of the last; the whole record for no clips): what to
     * read ahead ({@link MemorySegment#load()}) or evict ({@link #evict}). Valid while the dataset is open.
     *
     * @throws ShardException when the sample's record is damaged
     */
    public MemorySegment clipBytes(int index, List<ClipSpec> clips) {
        return ShardClipReader.clipBytes(this, index, clips);
    }

    /**
     * Drops {@code bytes} (from {@link #clipBytes} of sample {@code index}) from this process's mapping and
     * asks the kernel to drop them from the page cache ({@code posix_fadvise(DONTNEED)}), so that the next
     * read of them comes from the device: cold-cache benchmarks.
     */
    public void evict(int index, MemorySegment bytes) throws IOException {
        SampleInfo info = sample(index);
        long offset = shardOf(info).fileOffset(bytes);
        if (bytes.byteSize() > 0) {
            bytes.unload();
            PageCache.evict(root.resolve(info.shard()), offset, bytes.byteSize());
        }
    }

    /**
     * Holds, in the block cache, the blocks reading {@code clips} of sample {@code index} reads, downloading the
     * missing ones, until the pin is closed: a remote dataset's read ahead. Null without a cache.
     *
     * @throws ShardException when the sample's record is damaged, or the download fails
     */
    public BlockCache.Pin pinClipBlocks(int index, List<ClipSpec> clips) {
        ShardClipReader.ClipPackets read = ShardClipReader.clipPackets(this, index, clips);
        return read.shard().pin(read.info().record(), read.entry(), read.packets());
    }

    /** The cache bytes {@link #pinClipBlocks} would hold for these clips (0 without a cache). */
    public long clipBlockBytes(int index, List<ClipSpec> clips) {
        ShardClipReader.ClipPackets read = ShardClipReader.clipPackets(this, index, clips);
        return read.shard().pinBytes(read.entry(), read.packets());
    }

    ShardFormat format() { return format; }

    /** The mapped shard holding sample {@code index}. */
    /**
     * Sample {@code index}'s stored frames with the keyframes of its source video, which a decode budget draws clip
     * starts from; a {@link ShardException} for a record that does not list them (ingested before they were kept).
     */
    public dev.stoker.loader.clip.KeyframeIndex sourceKeyframes(int index) {
        SampleInfo info = sample(index);
        return SourceKeyframes.of(shardOf(info), info);
    }

    ShardFile shardOf(SampleInfo sample) {
        int s = manifest.samples().get(sample.index()).shard();
        if (shards[s] == null) {
            throw new ShardException(sample.shard(), sample.record(), ShardException.Reason.INCONSISTENT,
                    "cannot map the shard: " + missing[s]);
        }
        return shards[s];
    }

    @Override
    public void close() {
        arena.close();
        if (cache != null) {
            cache.close();
        }
        if (store != null) {
            store.close();
        }
    }
}
