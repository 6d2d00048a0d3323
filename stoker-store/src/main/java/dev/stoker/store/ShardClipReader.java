package dev.stoker.store;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.KeyframeIndex;
import dev.stoker.loader.clip.Resize;
import dev.stoker.store.internal.MappedClip;
import dev.stoker.store.internal.SampleInfo;
import dev.stoker.store.internal.ShardException;
import dev.stoker.store.internal.ShardVerifier;
import dev.stoker.store.shard.internal.RecordEntry;
import dev.stoker.store.shard.ShardFile;
import dev.stoker.video.ClipDecoder;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.internal.ClipSelection;
import dev.stoker.video.Video;
import dev.stoker.video.VideoPackets;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.function.Function;

/**
 * Reads clips from mapped shards: the record's packets become a {@link Video} in place
 * ({@link Video#fromPackets}, nothing copied), the clip's frames are selected exactly as
 * {@link ClipDecoder} selects them, the checksums of the packets to be read are checked (as the dataset's
 * {@link Verification} says), and the frames are decoded (or, for raw frames already at the requested scale,
 * copied: {@link #locate} without the copy).
 */
final class ShardClipReader implements ClipReader {
    private final ShardDataset dataset;
    private final ClipDecoder decoder = new ClipDecoder(1, true);
    private long copiedFrames;

    ShardClipReader(ShardDataset dataset) {
        this.dataset = dataset;
    }

    @Override
    public List<DecodedClip> read(int sample, List<ClipRequest> requests) {
        Stored stored = stored(sample);
        List<Resize> resizes = requests.stream().map(ClipRequest::resize).toList();
        List<Cut> cuts = cuts(stored.entry(), resizes);
        if (cuts != null) {
            List<MappedClip> mapped = locate(stored, requests.stream().map(ClipRequest::spec).toList(), cuts);
            List<DecodedClip> clips = new ArrayList<>(mapped.size());
            for (int c = 0; c < mapped.size(); c++) {
                mapped.get(c).copyTo(requests.get(c).destination());
                clips.add(mapped.get(c).clip());
            }
            return clips;
        }
        try (Video video = Video.fromPackets(stored.name(), packets(stored.shard(), stored.info(), stored.entry(),
                stored.payload()))) {
            List<ClipSelection> selections = new ArrayList<>(requests.size());
            for (ClipRequest request : requests) {
                selections.add(video.selectClip(request.spec()));
            }
            verify(stored, selections);
            return decoder.decode(video, requests);
        } finally {
            // The video holds the payload's address only: a remote shard's payload (freed by the GC) must outlive
            // the decode, or FFmpeg reads freed memory.
            Reference.reachabilityFence(stored.payload());
        }
    }

    @Override
    public List<MappedClip> locate(int sample, List<ClipSpec> specs, List<Resize> resizes) {
        if (specs.size() != resizes.size()) {
            throw new IllegalArgumentException("resizes: " + resizes.size() + " (expected: one per spec, " + specs.size() + ")");
        }
        Stored stored = stored(sample);
        List<Cut> cuts = cuts(stored.entry(), resizes);
        return cuts != null ? locate(stored, specs, cuts) : null;
    }

    /** A sample's record, checked against the manifest, and its payload, bounds-checked. */
    private record Stored(SampleInfo info, ShardFile shard, RecordEntry entry, MemorySegment payload) {
        String name() {
            return info.sourcePath() + " (" + shard.name() + " record " + info.record() + ")";
        }
    }

    private Stored stored(int sample) {
        SampleInfo info = dataset.sample(sample);
        ShardFile shard = dataset.shardOf(info);
        RecordEntry entry = shard.entry(info.record());
        // Callers size their buffers from the manifest: a record that disagrees must not be decoded into them.
        ShardVerifier.agree(shard.name(), info.record(), entry, info.sourceIndex(), info.sourcePath().toString(), info.frameCount(),
                info.width(), info.height());
        if (dataset.format().storesRgbFrames()) {
            long frameBytes = (long) entry.width() * entry.height() * 3;
            for (int p = 0; p < entry.frameCount(); p++) {
                if (entry.sizes()[p] != frameBytes) {
                    throw new ShardException(shard.name(), info.record(), ShardException.Reason.BAD_OFFSET, "frame " + p
                            + " of " + entry.sizes()[p] + " bytes (expected: " + frameBytes + ", one RGB24 frame)");
                }
            }
        }
        return new Stored(info, shard, entry, shard.payload(info.record(), entry));
    }

    /** Where a clip lies in the stored frames when it is a plain cut of them, and whether it is mirrored. */
    private record Cut(Resize.Window window, boolean mirrored) {
    }

    /** Each clip as a plain cut of the stored RGB24 frames (no decoding, no scaling); null when any is not one. */
    private List<Cut> cuts(RecordEntry entry, List<Resize> resizes) {
        if (!dataset.format().storesRgbFrames()) {
            return null;
        }
        List<Cut> cuts = new ArrayList<>(resizes.size());
        for (Resize resize : resizes) {
            Resize.Framing framing = resize.framing();
            Resize.Window window = unscaledCrop(resize, framing, entry);
            if (window == null) {
                return null;
            }
            cuts.add(new Cut(window, framing.mirrored()));
        }
        return cuts;
    }

    /**
     * Fetches the packets decoding {@code selections} reads (a remote shard downloads them; a mapping has them) and
     * checks their checksums, as the dataset's verification says.
     */
    private void verify(Stored stored, List<ClipSelection> selections) {
        BitSet read = new BitSet(stored.entry().frameCount());
        for (ClipSelection selection : selections) {
            markPacketsRead(stored.entry(), selection.frames(), read);
        }
        stored.shard().fetch(stored.info().record(), stored.entry(), stored.payload(), read);
        boolean everyRead = dataset.verification() == Verification.EVERY_READ;
        for (int p = read.nextSetBit(0); p >= 0; p = read.nextSetBit(p + 1)) {
            if (everyRead) {
                stored.shard().checkPacket(stored.info().record(), stored.entry(), stored.payload(), p);
            } else {
                stored.shard().checkPacketOnce(stored.info().record(), stored.entry(), stored.payload(), p);
            }
        }
    }

    /**
     * The bytes reading {@code clips} of sample {@code sample} touches, as one slice of its mapped shard: from
     * the first packet read (for video, the keyframe at or before a clip's first frame) to the end of the last.
     */
    static MemorySegment clipBytes(ShardDataset dataset, int sample, List<ClipSpec> clips) {
        if (clips.isEmpty()) {
            SampleInfo info = dataset.sample(sample);
            ShardFile shard = dataset.shardOf(info);
            return shard.payload(info.record(), shard.entry(info.record()));
        }
        ClipPackets read = clipPackets(dataset, sample, clips);
        RecordEntry entry = read.entry();
        int first = read.packets().nextSetBit(0);
        int last = read.packets().length() - 1;
        MemorySegment payload = read.shard().payload(read.info().record(), entry);
        if (first < 0) {
            return payload.asSlice(0, 0);
        }
        long from = entry.offsets()[first];
        long to = entry.offsets()[last] + entry.sizes()[last] + VideoPackets.PADDING_BYTES;
        if (from < 0 || to < from || to > payload.byteSize()) {
            // Only a damaged index gets here (a JPEG or raw record's packets are not checked as a video's are).
            throw new ShardException(read.shard().name(), read.info().record(), ShardException.Reason.BAD_OFFSET,
                    "packets " + first + " to " + last + " span bytes " + from + " to " + to + " of a "
                            + payload.byteSize() + "-byte payload (expected: in order, inside it)");
        }
        return payload.asSlice(from, to - from);
    }

    /** A sample's record and the packets reading some of its clips reads. */
    record ClipPackets(SampleInfo info, ShardFile shard, RecordEntry entry, BitSet packets) {
    }

    /** The packets reading {@code clips} of sample {@code sample} reads (selected as a read selects them). */
    static ClipPackets clipPackets(ShardDataset dataset, int sample, List<ClipSpec> clips) {
        SampleInfo info = dataset.sample(sample);
        ShardFile shard = dataset.shardOf(info);
        RecordEntry entry = shard.entry(info.record());
        MemorySegment payload = shard.payload(info.record(), entry);
        String name = info.sourcePath() + " (" + shard.name() + " record " + info.record() + ")";
        return withFrames(name, shard, info, entry, payload, frames -> {
            BitSet read = new BitSet(entry.frameCount());
            for (ClipSpec clip : clips) {
                markPacketsRead(entry, ClipSelection.of(frames, name, entry.durationSeconds(), clip).frames(), read);
            }
            return new ClipPackets(info, shard, entry, read);
        });
    }

    /**
     * Runs {@code body} over the record's frames as clips select among them: its stored frame times when they rise
     * packet by packet ({@link #storedFrames}: no video opened), else a {@link Video} of its packets, open while
     * {@code body} runs. The index is checked against the payload either way (a damaged one is a ShardException).
     */
    private static <T> T withFrames(String name, ShardFile shard, SampleInfo info, RecordEntry entry,
                                    MemorySegment payload, Function<KeyframeIndex, T> body) {
        VideoPackets packets = packets(shard, info, entry, payload);
        KeyframeIndex frames = storedFrames(entry);
        if (frames != null) {
            return body.apply(frames);
        }
        try (Video video = Video.fromPackets(name, packets)) {
            return body.apply(video);
        } finally {
            Reference.reachabilityFence(payload); // the video holds its address only
        }
    }

    private static VideoPackets packets(ShardFile shard, SampleInfo info, RecordEntry entry, MemorySegment payload) {
        try {
            return new VideoPackets(entry.codecName(), entry.width(), entry.height(), entry.pixelFormat(),
                    entry.timeBaseNumerator(), entry.timeBaseDenominator(), entry.framesPerSecond(), entry.extradata(),
                    payload, entry.pts(), entry.durations(), entry.keyframes(), entry.offsets(), entry.sizes());
        } catch (IllegalArgumentException e) {
            throw new ShardException(shard.name(), info.record(), ShardException.Reason.BAD_OFFSET, e.getMessage(), e);
        }
    }

    /** Packets a decode of {@code frames} reads: from the keyframe at or before the first, through the last. */
    private static void markPacketsRead(RecordEntry entry, int[] frames, BitSet read) {
        boolean intra = true;
        for (boolean key : entry.keyframes()) {
            intra &= key;
        }
        if (intra) {
            for (int f : frames) {
                read.set(f);
            }
            return;
        }
        int first = Integer.MAX_VALUE;
        int last = -1;
        for (int f : frames) {
            first = Math.min(first, f);
            last = Math.max(last, f);
        }
        int start = first;
        while (start > 0 && !entry.keyframes()[start]) {
            start--;
        }
        read.set(start, last + 1);
    }

    /**
     * Where the output sits in the stored frame when it is a plain cut of it: the converter's own window
     * ({@link Resize#sourceWindow}, the stored frames upright RGB24) when it is the output's size, so that the
     * converter would only copy its rows; null when it would scale them.
     */
    static Resize.Window unscaledCrop(Resize resize, Resize.Framing framing, RecordEntry entry) {
        boolean original = resize.mode() == Resize.Mode.ORIGINAL;
        int outWidth = original ? entry.width() : resize.width();
        int outHeight = original ? entry.height() : resize.height();
        Resize.Window cut = resize.sourceWindow(0, entry.width(), entry.height(), framing, outWidth, outHeight, 0, 0);
        return cut.width() == outWidth && cut.height() == outHeight ? cut : null;
    }

    /** The clips as cuts of the stored frames (after selecting and verifying them); copies nothing. */
    private List<MappedClip> locate(Stored stored, List<ClipSpec> specs, List<Cut> cuts) {
        return withFrames(stored.name(), stored.shard(), stored.info(), stored.entry(), stored.payload(),
                frames -> locate(stored, specs, cuts, frames));
    }

    private List<MappedClip> locate(Stored stored, List<ClipSpec> specs, List<Cut> cuts, KeyframeIndex frames) {
        RecordEntry entry = stored.entry();
        String path = stored.name();
        long storedRowBytes = (long) entry.width() * 3;
        List<ClipSelection> selections = new ArrayList<>(specs.size());
        for (ClipSpec spec : specs) {
            selections.add(ClipSelection.of(frames, path, entry.durationSeconds(), spec));
        }
        verify(stored, selections);
        List<MappedClip> clips = new ArrayList<>(specs.size());
        for (int c = 0; c < specs.size(); c++) {
            ClipSelection selection = selections.get(c);
            int[] selected = selection.frames();
            Resize.Window cut = cuts.get(c).window();
            long[] cutOffsets = new long[selected.length];
            List<Integer> indices = new ArrayList<>(selected.length);
            List<Double> times = new ArrayList<>(selected.length);
            for (int k = 0; k < selected.length; k++) {
                cutOffsets[k] = entry.offsets()[selected[k]] + cut.y() * storedRowBytes + cut.x() * 3L;
                indices.add(selected[k]);
                times.add(frames.frameTimeSeconds(selected[k]));
            }
            copiedFrames += selected.length;
            DecodedClip clip = new DecodedClip(path, cut.width(), cut.height(), indices, times, selected.length,
                    selection.shifted(), selection.repeatedFrames());
            clips.add(new MappedClip(clip, stored.payload(), cutOffsets, storedRowBytes, (long) cut.width() * 3,
                    cut.height(), cuts.get(c).mirrored()));
        }
        return clips;
    }

    /**
     * A record's frames as {@link Video#fromPackets} would index them, without opening one (its FFmpeg codec lookups
     * and parameters, made and freed for every clip, cost a fifth of a raw clip's copy): when the timestamps rise
     * packet by packet (raw and JPEG records, video without reordered frames), frame k is packet k, timed from the
     * first frame in the record's time base. Null otherwise: then only a video's own timeline says which frame is
     * where.
     */
    private static KeyframeIndex storedFrames(RecordEntry entry) {
        long[] pts = entry.pts();
        double secondsPerTick = (double) entry.timeBaseNumerator() / entry.timeBaseDenominator();
        if (pts.length == 0 || !(secondsPerTick > 0) || Double.isInfinite(secondsPerTick)) {
            return null;   // a damaged entry: the video's own checks name what is wrong
        }
        double[] seconds = new double[pts.length];
        int[] keyframes = new int[pts.length];
        int keys = 0;
        for (int k = 0; k < pts.length; k++) {
            seconds[k] = (pts[k] - pts[0]) * secondsPerTick;
            if (k > 0 && (pts[k] <= pts[k - 1] || !(seconds[k] > seconds[k - 1]))) {
                return null;   // not rising packet by packet (or past what a double tells apart)
            }
            if (entry.keyframes()[k]) {
                keyframes[keys++] = k;
            }
        }
        return KeyframeIndex.of(seconds, Arrays.copyOf(keyframes, keys));
    }

    @Override
    public long decodedFrames() {
        return decoder.decodedFrames() + copiedFrames;
    }

    @Override
    public void close() {
        decoder.close();
    }
}
