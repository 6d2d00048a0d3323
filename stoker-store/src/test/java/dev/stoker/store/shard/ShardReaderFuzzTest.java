package dev.stoker.store.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.store.ClipReader;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.internal.MappedClip;
import dev.stoker.store.internal.SampleInfo;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.internal.ShardException;
import dev.stoker.store.internal.ShardVerifier;
import dev.stoker.store.Verification;
import dev.stoker.store.ingest.Ingest;
import dev.stoker.store.ingest.IngestListener;
import dev.stoker.store.shard.internal.RecordEntry;
import dev.stoker.store.shard.internal.ShardLayout;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.VideoException;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The shard reader under damage it must survive: shards with flipped bytes, truncated shards, index entries
 * and footers whose checksums hold but whose offsets, lengths, sizes and timestamps lie, and manifests that
 * point nowhere. Every sample of every damaged dataset is read (decoded and, for raw frames, located and
 * copied), its read bytes asked for, and the whole dataset verified; every failure must be a
 * {@link ShardException} naming the sample's shard and record (or a {@link VideoException} whose input is
 * named by both), never another exception (an out-of-bounds access is an {@link IndexOutOfBoundsException}
 * here, or a crash of the JVM running the test), and never a hang (each case has a deadline).
 *
 * <p>Datasets are tiny (4 one-second 96x64 clips, 32-pixel short side, several shards per format) so that the
 * few thousand cases run in well under a minute.
 */
class ShardReaderFuzzTest {
    private static final List<String> FORMATS = List.of("video", "jpeg", "raw");
    private static final long CASE_DEADLINE_SECONDS = 30;
    /** The ingested datasets, per format: file name to bytes, manifest included. */
    private static final Map<String, Map<String, byte[]>> PRISTINE = new LinkedHashMap<>();
    private static Path scratch;
    private static ExecutorService runner;

    @BeforeContainer
    static void ingest() throws IOException {
        scratch = Files.createTempDirectory("stoker-shard-fuzz");
        Path videos = DemoDataset.create(scratch.resolve("videos"), new DemoSpec(2, 2, 1.0, 96, 64, 12, 7L));
        for (String format : FORMATS) {
            Path dest = scratch.resolve("pristine-" + format);
            IngestOptions options = IngestOptions.defaults().withFormat(IngestOptions.Format.of(format)).withShortSide(32)
                    .withShardSize(format.equals("raw") ? 40L << 10 : 4L << 10);
            Ingest.run(Dataset.open(videos), dest, options, 1, IngestListener.NONE);
            Map<String, byte[]> files = new LinkedHashMap<>();
            try (Stream<Path> list = Files.list(dest)) {
                for (Path file : list.sorted().toList()) {
                    String name = file.getFileName().toString();
                    if (name.equals(ShardDataset.MANIFEST) || ShardLayout.isShardName(name)) {
                        files.put(name, Files.readAllBytes(file));
                    }
                }
            }
            assertThat(files.keySet().stream().filter(ShardLayout::isShardName).count()).as(format + " shards")
                    .isGreaterThan(1);
            PRISTINE.put(format, files);
        }
        runner = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "shard-fuzz-case");
            thread.setDaemon(true);
            return thread;
        });
    }

    @AfterContainer
    static void cleanUp() throws IOException {
        runner.shutdownNow();
        try (Stream<Path> all = Files.walk(scratch)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** The undamaged datasets read without a single failure, so that every failure below is the damage's. */
    @Example
    void pristineDatasetsReadClean() throws Exception {
        for (String format : FORMATS) {
            Path dir = write(PRISTINE.get(format), format);
            readEverything(dir, Runnable::run);
            assertThat(ShardVerifier.verify(dir).damages()).as(format).isEmpty();
        }
    }

    @Provide
    Arbitrary<String> formats() {
        return Arbitraries.of(FORMATS);
    }

    /** Values that break arithmetic (signs, overflow, zero) mixed with small and file-sized ones. */
    @Provide
    Arbitrary<Long> lies() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, Arbitraries.of(-1L, 0L, 1L, 63L, 64L, 65L, Long.MAX_VALUE, Long.MIN_VALUE,
                        Long.MAX_VALUE - 64, (long) Integer.MAX_VALUE, (long) Integer.MIN_VALUE, 1L << 32, 1L << 20)),
                net.jqwik.api.Tuple.of(3, Arbitraries.longs().between(-200_000, 200_000)),
                net.jqwik.api.Tuple.of(1, Arbitraries.longs()));
    }

    @Property(tries = 1200, edgeCases = EdgeCasesMode.MIXIN)
    void flippedBytes(@ForAll("formats") String format, @ForAll @IntRange(min = 0, max = 99) int shardPick,
                      @ForAll @Size(min = 1, max = 8) List<@IntRange(min = 0, max = Integer.MAX_VALUE) Integer> positions,
                      @ForAll boolean inIndex, @ForAll @IntRange(min = 1, max = 255) int xor) throws Exception {
        check(format, shardPick, (name, bytes) -> {
            // Half the flips land in the index and footer, which are small but hold every offset.
            long from = inIndex ? Math.max(0, bytes.length - tailBytes(bytes)) : 0;
            for (int position : positions) {
                int at = (int) (from + position % (bytes.length - from));
                bytes[at] ^= (byte) xor;
            }
            return bytes;
        });
    }

    @Property(tries = 400, edgeCases = EdgeCasesMode.MIXIN)
    void truncatedShard(@ForAll("formats") String format, @ForAll @IntRange(min = 0, max = 99) int shardPick,
                        @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int cut, @ForAll boolean inIndex)
            throws Exception {
        check(format, shardPick, (name, bytes) -> {
            long from = inIndex ? Math.max(0, bytes.length - tailBytes(bytes)) : 0;
            return Arrays.copyOf(bytes, (int) (from + cut % (bytes.length - from)));
        });
    }

    /**
     * What {@link #lyingIndexEntry} once found (seed -1408389243025222598): a JPEG record whose first packet's offset
     * points past its last packet's end; the byte range a prefetch reads must be a named error, not a bounds crash.
     */
    @Example
    void aFirstPacketOffsetPastTheLastPacketsEnd() throws Exception {
        lyingIndexEntry("jpeg", 0, 0, EntryField.PACKET_OFFSET, 0, 5096);
    }

    /** An index entry rewritten with one lying field, its checksum, the index's and the footer's made to match. */
    @Property(tries = 1500, edgeCases = EdgeCasesMode.MIXIN)
    void lyingIndexEntry(@ForAll("formats") String format, @ForAll @IntRange(min = 0, max = 99) int shardPick,
                         @ForAll @IntRange(min = 0, max = 99) int recordPick, @ForAll EntryField field,
                         @ForAll @IntRange(min = 0, max = 999) int packetPick, @ForAll("lies") long value)
            throws Exception {
        check(format, shardPick, (name, bytes) -> {
            List<byte[]> entries = indexEntries(bytes);
            int r = recordPick % entries.size();
            RecordEntry entry = RecordEntry.decode(entries.get(r));
            entries.set(r, lie(entry, field, packetPick, value).encode());
            return withIndex(bytes, entries);
        });
    }

    /** A footer field rewritten, the footer's checksum made to match; or the header's length field. */
    @Property(tries = 400, edgeCases = EdgeCasesMode.MIXIN)
    void lyingFooter(@ForAll("formats") String format, @ForAll @IntRange(min = 0, max = 99) int shardPick,
                     @ForAll @IntRange(min = 0, max = 5) int field, @ForAll("lies") long value) throws Exception {
        check(format, shardPick, (name, bytes) -> {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            int footer = bytes.length - ShardLayout.FOOTER_BYTES;
            switch (field) {
                case 0 -> buffer.putInt(footer, (int) value);           // first source
                case 1 -> buffer.putInt(footer + 4, (int) value);       // end source
                case 2 -> buffer.putLong(footer + 8, value);            // index offset
                case 3 -> buffer.putLong(footer + 16, value);           // index bytes
                case 4 -> buffer.putInt(footer + 24, (int) value);      // entries
                default -> buffer.putInt(12, (int) value);              // header length (no checksum of its own)
            }
            buffer.putInt(footer + 32, ShardLayout.crc32c(bytes, footer, 32));
            return bytes;
        });
    }

    /** A manifest row pointing elsewhere: another shard, record or label, or none. */
    @Property(tries = 400, edgeCases = EdgeCasesMode.MIXIN)
    void lyingManifest(@ForAll("formats") String format, @ForAll @IntRange(min = 0, max = 99) int rowPick,
                       @ForAll @IntRange(min = 0, max = 3) int field, @ForAll("lies") long value) throws Exception {
        Map<String, byte[]> files = new LinkedHashMap<>(PRISTINE.get(format));
        Manifest manifest = Manifest.JSON.readValue(files.get(ShardDataset.MANIFEST), Manifest.class);
        List<Manifest.SampleRow> rows = new ArrayList<>(manifest.samples());
        int r = rowPick % rows.size();
        Manifest.SampleRow row = rows.get(r);
        int lie = (int) value;
        rows.set(r, new Manifest.SampleRow(field == 0 ? lie : row.shard(), field == 1 ? lie : row.record(),
                row.sourceIndex(), field == 2 ? lie : row.label(), field == 3 ? lie : row.frames(), row.fps(),
                row.durationSeconds(), row.width(), row.height(), row.payloadBytes(), row.source(), row.text()));
        Manifest lying = new Manifest(manifest.formatVersion(), manifest.format(), manifest.options(),
                manifest.classNames(), manifest.sourceCount(), manifest.sampleCount(), manifest.failedCount(),
                manifest.payloadBytes(), manifest.shards(), rows, manifest.failed());
        files.put(ShardDataset.MANIFEST, Manifest.JSON.writeValueAsBytes(lying));
        run(files, format);
    }

    enum EntryField {
        PAYLOAD_OFFSET, PAYLOAD_BYTES, PACKET_OFFSET, PACKET_SIZE, PACKET_COUNT, WIDTH, HEIGHT, TIME_BASE_NUMERATOR,
        TIME_BASE_DENOMINATOR, PTS, DURATION, KEYFRAME, FPS, SOURCE_INDEX, EXTRADATA, CODEC, PIXEL_FORMAT, FAILED
    }

    private static RecordEntry lie(RecordEntry e, EntryField field, int packetPick, long value) {
        int n = e.frameCount();
        int k = n == 0 ? 0 : packetPick % n;
        int v = (int) value;
        RecordEntry.Packets packets = firstPackets(e.packets(), n);
        long payloadOffset = e.payloadOffset();
        long payloadBytes = e.payloadBytes();
        int width = e.width();
        int height = e.height();
        int num = e.timeBaseNumerator();
        int den = e.timeBaseDenominator();
        double fps = e.framesPerSecond();
        int sourceIndex = e.sourceIndex();
        byte[] extradata = e.extradata();
        String codec = e.codecName();
        String pixelFormat = e.pixelFormat();
        switch (field) {
            case PAYLOAD_OFFSET -> payloadOffset = value;
            case PAYLOAD_BYTES -> payloadBytes = value;
            case PACKET_OFFSET -> packets.offsets()[k] = value;
            case PACKET_SIZE -> packets.sizes()[k] = v;
            case PACKET_COUNT -> packets = firstPackets(packets, Math.floorMod(v, n + 1));
            case WIDTH -> width = v;
            case HEIGHT -> height = v;
            case TIME_BASE_NUMERATOR -> num = v;
            case TIME_BASE_DENOMINATOR -> den = v;
            case PTS -> packets.pts()[k] = value;
            case DURATION -> packets.durations()[k] = value;
            case KEYFRAME -> packets.keyframes()[k] = !packets.keyframes()[k];
            case FPS -> fps = value == 0 ? Double.NaN : value / 1000.0;
            case SOURCE_INDEX -> sourceIndex = v;
            case EXTRADATA -> {
                extradata = new byte[Math.floorMod(v, 300)];
                new java.util.SplittableRandom(value).nextBytes(extradata);
            }
            case CODEC -> codec = List.of("h264", "rawvideo", "mjpeg", "vp8", "hevc", "", "no-such-codec")
                    .get(Math.floorMod(v, 7));
            case PIXEL_FORMAT -> pixelFormat = List.of("rgb24", "yuv420p", "gray", "yuvj420p", "", "no-such-format")
                    .get(Math.floorMod(v, 6));
            case FAILED -> {
                return RecordEntry.failure(e.source(), "lie", "a sample said to have failed");
            }
        }
        return new RecordEntry(sourceIndex, false, e.sourcePath(), e.sourceBytes(), e.sourceMtimeMillis(), e.label(),
                e.className(), "", "", codec, pixelFormat, width, height, num, den, fps, e.durationSeconds(), payloadOffset,
                payloadBytes, e.payloadCrc32c(), extradata, packets);
    }

    /** A copy of a table's first {@code count} packets. */
    private static RecordEntry.Packets firstPackets(RecordEntry.Packets p, int count) {
        return new RecordEntry.Packets(Arrays.copyOf(p.pts(), count), Arrays.copyOf(p.durations(), count),
                Arrays.copyOf(p.keyframes(), count), Arrays.copyOf(p.offsets(), count), Arrays.copyOf(p.sizes(), count),
                Arrays.copyOf(p.crc32c(), count));
    }

    /** Bytes of the index and footer, as the footer says (the whole file when the footer is unreadable). */
    private static int tailBytes(byte[] shard) {
        long indexBytes = ByteBuffer.wrap(shard).getLong(shard.length - ShardLayout.FOOTER_BYTES + 16);
        return (int) Math.min(shard.length, indexBytes + ShardLayout.FOOTER_BYTES);
    }

    private static List<byte[]> indexEntries(byte[] shard) {
        ByteBuffer buffer = ByteBuffer.wrap(shard);
        int footer = shard.length - ShardLayout.FOOTER_BYTES;
        int at = (int) buffer.getLong(footer + 8);
        int count = buffer.getInt(footer + 24);
        List<byte[]> entries = new ArrayList<>(count);
        for (int r = 0; r < count; r++) {
            int length = buffer.getInt(at);
            entries.add(Arrays.copyOfRange(shard, at + 4, at + 4 + length));
            at += 8 + length;
        }
        return entries;
    }

    /** The shard with its index replaced by {@code entries} (each with its checksum) and its footer rewritten. */
    private static byte[] withIndex(byte[] shard, List<byte[]> entries) {
        ByteBuffer old = ByteBuffer.wrap(shard);
        int footer = shard.length - ShardLayout.FOOTER_BYTES;
        int indexOffset = (int) old.getLong(footer + 8);
        int indexBytes = entries.stream().mapToInt(e -> e.length + 8).sum();
        ByteBuffer out = ByteBuffer.allocate(indexOffset + indexBytes + ShardLayout.FOOTER_BYTES);
        out.put(shard, 0, indexOffset);
        for (byte[] entry : entries) {
            out.putInt(entry.length).put(entry).putInt(ShardLayout.crc32c(entry, 0, entry.length));
        }
        int indexCrc = ShardLayout.crc32c(out.array(), indexOffset, indexBytes);
        int footerAt = out.position();
        out.putInt(old.getInt(footer)).putInt(old.getInt(footer + 4)).putLong(indexOffset).putLong(indexBytes)
                .putInt(entries.size()).putInt(indexCrc);
        out.putInt(ShardLayout.crc32c(out.array(), footerAt, 32)).putInt(0).put(ShardLayout.FOOTER_MAGIC);
        return out.array();
    }

    @FunctionalInterface
    private interface Damage {
        byte[] apply(String shard, byte[] bytes) throws IOException;
    }

    /** Damages one shard of the format's dataset (picked by {@code shardPick}) and runs the reads against it. */
    private static void check(String format, int shardPick, Damage damage) throws Exception {
        Map<String, byte[]> files = new LinkedHashMap<>(PRISTINE.get(format));
        List<String> shards = files.keySet().stream().filter(ShardLayout::isShardName).toList();
        String victim = shards.get(shardPick % shards.size());
        files.put(victim, damage.apply(victim, files.get(victim).clone()));
        run(files, format);
    }

    private static Path write(Map<String, byte[]> files, String format) throws IOException {
        Path dir = scratch.resolve("case-" + format);
        Files.createDirectories(dir);
        for (Map.Entry<String, byte[]> file : files.entrySet()) {
            Files.write(dir.resolve(file.getKey()), file.getValue());
        }
        return dir;
    }

    private static void run(Map<String, byte[]> files, String format) throws Exception {
        Path dir = write(files, format);
        Future<?> reads = runner.submit(() -> {
            readEverything(dir, null);
            return null;
        });
        try {
            reads.get(CASE_DEADLINE_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            reads.cancel(true);
            fail("reading a damaged " + format + " dataset took over " + CASE_DEADLINE_SECONDS + " s");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    private static final List<ClipSpec> SPECS = List.of(ClipSpec.frames(0, 4, 2), ClipSpec.frames(0.5, 3, 1));

    /** What a read of a sample is run by: {@link #expectNamedFailure} (null) for damaged datasets. */
    private interface ReadCheck {
        void run(Runnable read);
    }

    private static void readEverything(Path dir, ReadCheck strict) throws IOException {
        for (Verification verification : Verification.values()) {
            ShardDataset shards;
            try {
                shards = ShardDataset.open(dir, verification);
            } catch (IOException e) {
                if (strict != null) {
                    throw e;
                }
                assertThat(e.getMessage()).as("a refused open names the manifest").contains(ShardDataset.MANIFEST);
                return;
            }
            try (shards; ClipReader reader = shards.newReader(); Arena arena = Arena.ofConfined()) {
                for (int i = 0; i < shards.size(); i++) {
                    SampleInfo info = shards.sample(i);
                    int sample = i;
                    long storedFrameBytes = (long) info.width() * info.height() * 3;
                    MemorySegment original = arena.allocate(storedFrameBytes * 4);
                    MemorySegment scaled = arena.allocate(16L * 16 * 3 * 3);
                    ReadCheck check = strict != null ? strict : read -> expectNamedFailure(info, read);
                    check.run(() -> reader.read(sample, List.of(
                            new ClipRequest(SPECS.get(0), Resize.original(), original),
                            new ClipRequest(SPECS.get(1), Resize.centerCrop(16, 16, 16), scaled))));
                    check.run(() -> {
                        List<MappedClip> located = reader.locate(sample, SPECS,
                                List.of(Resize.original(), Resize.original()));
                        if (located != null) {
                            for (MappedClip clip : located) {
                                assertThat(clip.byteSize()).as("a located clip's size, from the manifest's frame size")
                                        .isLessThanOrEqualTo(original.byteSize());
                                clip.copyTo(original);
                            }
                        }
                    });
                    check.run(() -> shards.clipBytes(sample, SPECS).load());
                }
            }
        }
        ShardVerifier.Report report = ShardVerifier.verify(dir);
        assertThat(report.damages()).allSatisfy(d -> assertThat(d.shard()).isNotBlank());
    }

    /** Runs a read of {@code info}; a failure must name its shard and record. */
    private static void expectNamedFailure(SampleInfo info, Runnable read) {
        try {
            read.run();
        } catch (ShardException e) {
            assertThat(e.shard()).as("shard of %s", e).isEqualTo(info.shard());
            assertThat(e.record()).as("record of %s", e).isEqualTo(info.record());
        } catch (VideoException e) {
            assertThat(e.getMessage()).as("input of %s", e).contains(info.shard() + " record " + info.record());
        } catch (AssertionError e) {
            throw e;
        } catch (RuntimeException | Error e) {
            throw new AssertionError("sample " + info.index() + " (" + info.shard() + " record " + info.record()
                    + "): " + e, e);
        }
    }
}
