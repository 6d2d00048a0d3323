package dev.stoker.video.loader.internal;

import dev.stoker.loader.batch.BatchPool;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.pipeline.subprocess.ItemCodec;
import dev.stoker.pipeline.subprocess.ItemCodecs;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Codecs for the loader's items across the process boundary: the source's {@link VideoTask}s, the
 * fetch stage's {@link FetchedVideo}s (task, then the file's bytes: one copy each way), the demux
 * stage's {@link OpenedVideo}s (task, clip starts, then the video as packets: {@link OpenedVideoCodec}),
 * converted clips ({@link LoadedClipCodec}) and collated batches ({@link CollatedBatchCodec}); the last two
 * decode into pooled off-heap buffers of the receiving process.
 */
public final class LoaderCodecs {
    private LoaderCodecs() { }

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    // index, epoch, position, firstClip, label, then start and end (NaN = absent)
    private static final long FIXED_BYTES = 5 * 4 + 2 * 8;
    /** The length that stands for a sample without text (an empty text is length 0). */
    private static final int NO_TEXT = -1;

    /** {@link VideoTask}: its entry (path, label, class name, range, text) and its place in the epoch. */
    public static final class VideoTaskCodec implements ItemCodec<VideoTask> {
        @Override
        public long encodedBytes(VideoTask task) {
            VideoEntry e = task.entry();
            return FIXED_BYTES + 4 + ItemCodecs.PATH.encodedBytes(e.path()) + 4 + ItemCodecs.STRING.encodedBytes(e.className())
                    + 4 + e.text().map(ItemCodecs.STRING::encodedBytes).orElse(0L);
        }

        @Override
        public void encode(VideoTask task, MemorySegment target) {
            VideoEntry e = task.entry();
            target.set(INT, 0, task.index());
            target.set(INT, 4, task.epoch());
            target.set(INT, 8, task.position());
            target.set(INT, 12, task.firstClip());
            target.set(INT, 16, e.label());
            target.set(DOUBLE, 20, e.startSeconds().orElse(Double.NaN));
            target.set(DOUBLE, 28, e.endSeconds().orElse(Double.NaN));
            long at = putSized(ItemCodecs.PATH, e.path(), target, FIXED_BYTES);
            at = putSized(ItemCodecs.STRING, e.className(), target, at);
            if (e.text().isPresent()) {
                putSized(ItemCodecs.STRING, e.text().get(), target, at);
            } else {
                target.set(INT, at, NO_TEXT);
            }
        }

        @Override
        public VideoTask decode(MemorySegment source) {
            int pathBytes = source.get(INT, FIXED_BYTES);
            long at = FIXED_BYTES + 4;
            Path path = ItemCodecs.PATH.decode(source.asSlice(at, pathBytes));
            at += pathBytes;
            int classBytes = source.get(INT, at);
            String className = ItemCodecs.STRING.decode(source.asSlice(at + 4, classBytes));
            at += 4 + classBytes;
            int textBytes = source.get(INT, at);
            Optional<String> text = textBytes == NO_TEXT ? Optional.empty()
                    : Optional.of(ItemCodecs.STRING.decode(source.asSlice(at + 4, textBytes)));
            double start = source.get(DOUBLE, 20);
            double end = source.get(DOUBLE, 28);
            VideoEntry entry = new VideoEntry(path, source.get(INT, 16), className,
                    Double.isNaN(start) ? OptionalDouble.empty() : OptionalDouble.of(start),
                    Double.isNaN(end) ? OptionalDouble.empty() : OptionalDouble.of(end), text);
            return new VideoTask(entry, source.get(INT, 0), source.get(INT, 4), source.get(INT, 8), source.get(INT, 12));
        }

        /** Writes {@code item}'s length, then the item, at {@code at}; returns where the next one goes. */
        private static <T> long putSized(ItemCodec<T> codec, T item, MemorySegment target, long at) {
            long bytes = codec.encodedBytes(item);
            target.set(INT, at, (int) bytes);
            codec.encode(item, target.asSlice(at + 4, bytes));
            return at + 4 + bytes;
        }
    }

    /** {@link FetchedVideo}: the task, a folder of images' listing (none for a file), then the bytes. */
    public static final class FetchedVideoCodec implements ItemCodec<FetchedVideo> {
        private final VideoTaskCodec tasks = new VideoTaskCodec();

        @Override
        public long encodedBytes(FetchedVideo video) {
            return 8 + tasks.encodedBytes(video.task()) + folderBytes(video).length + video.bytes().length;
        }

        private static byte[] folderBytes(FetchedVideo video) {
            return video.folder() == null ? new byte[0] : video.folder().toBytes();
        }

        @Override
        public void encode(FetchedVideo video, MemorySegment target) {
            long taskBytes = tasks.encodedBytes(video.task());
            byte[] folder = folderBytes(video);
            target.set(INT, 0, (int) taskBytes);
            target.set(INT, 4, folder.length);
            tasks.encode(video.task(), target.asSlice(8, taskBytes));
            ItemCodecs.BYTES.encode(folder, target.asSlice(8 + taskBytes, folder.length));
            ItemCodecs.BYTES.encode(video.bytes(), target.asSlice(8 + taskBytes + folder.length));
        }

        @Override
        public FetchedVideo decode(MemorySegment source) {
            int taskBytes = source.get(INT, 0);
            int folderBytes = source.get(INT, 4);
            VideoTask task = tasks.decode(source.asSlice(8, taskBytes));
            FetchedVideo.Folder folder = folderBytes == 0 ? null
                    : FetchedVideo.Folder.fromBytes(ItemCodecs.BYTES.decode(source.asSlice(8 + taskBytes, folderBytes)));
            return new FetchedVideo(task, ItemCodecs.BYTES.decode(source.asSlice(8 + taskBytes + folderBytes)), folder);
        }
    }

    static BatchPool requirePool(BatchPool pool, ItemCodec<?> codec) {
        if (pool == null) {
            throw new IllegalStateException(codec.name() + " made without a pool only encodes (expected: the constructor"
                    + " that takes the pool to decode into)");
        }
        return pool;
    }

    static ClipBatch acquire(BatchPool pool) {
        return pool.acquireInStage("a buffer of " + pool.shape());
    }

}
