package dev.stoker.video.loader.internal;

import dev.stoker.loader.FetchHook;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.dataset.ClipSampler;
import dev.stoker.loader.dataset.internal.ArchiveMembers;
import dev.stoker.video.FailureReason;
import dev.stoker.video.Video;
import dev.stoker.video.internal.FrameFolder;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.function.Function;

/**
 * Reads a video into memory: the one stage that waits on storage. Runs the fetch hook, if any, before each file it
 * reads. A video file is read whole, and so is a member of a tar archive (WebDataset shards), in place; a video
 * stored as a folder of images ({@link FrameFolder}) is listed, its clips drawn, and only the frames they show read
 * (every frame is a keyframe, so nothing else is decoded).
 */
public final class FetchStage implements Function<VideoTask, FetchedVideo> {
    private final LoaderOptions options;
    private final ClipSampler sampler;
    private final FetchHook hook;

    /** The most bytes a video file may have: it is read into one array, with FFmpeg's padding after it. */
    static final long MAX_FILE_BYTES = Integer.MAX_VALUE - 64;

    FetchStage(LoaderOptions options, FetchHook hook) {
        this.options = options;
        this.sampler = options.clipSampler();
        this.hook = hook;
    }

    @Override
    public FetchedVideo apply(VideoTask task) {
        Path path = task.entry().path();
        if (Files.isDirectory(path)) {
            return fetchFolder(task, path);
        }
        if (hook != null) {
            try {
                hook.beforeRead(path);
            } catch (IOException e) {
                throw new LoaderException(FailureReason.IO_ERROR, path + ": before reading it, " + hook.getClass().getSimpleName()
                        + " failed: " + e.getMessage(), e);
            }
        }
        if (Files.exists(path)) {   // else a member of a tar archive (WebDataset), or not there: read below
            notReadWhole(path);
        }
        byte[] bytes;
        try {
            bytes = ArchiveMembers.readAllBytes(path); // a file, or a member of a tar archive (WebDataset)
        } catch (NoSuchFileException e) {
            throw new LoaderException(FailureReason.NOT_FOUND, path + ": " + (e.getReason() != null ? e.getReason()
                    : "no such file"), e);
        } catch (EOFException e) {
            throw new LoaderException(FailureReason.TRUNCATED, e.getMessage(), e);
        } catch (AccessDeniedException e) {
            throw new LoaderException(FailureReason.IO_ERROR, path + ": permission denied", e);
        } catch (IOException e) {
            throw new LoaderException(FailureReason.IO_ERROR, path + ": cannot read: " + e.getMessage(), e);
        }
        if (bytes.length == 0) {
            throw new LoaderException(FailureReason.EMPTY_FILE, path + ": empty file (0 bytes)", null);
        }
        return new FetchedVideo(task, bytes);
    }

    /**
     * Refuses what reading the file whole would not survive: a named pipe or device (the read would wait forever for
     * a writer) and a file over what one array holds (an OutOfMemoryError every epoch). Both are the file's: quarantined.
     */
    private static void notReadWhole(Path path) {
        try {
            if (!Files.isRegularFile(path)) {
                throw new LoaderException(FailureReason.UNKNOWN_FORMAT, path
                        + ": not a regular file (a named pipe, socket or device)", null);
            }
            long size = Files.size(path);
            if (size > MAX_FILE_BYTES) {
                throw new LoaderException(FailureReason.TOO_LARGE, path + ": " + size + " bytes (expected: at most "
                        + MAX_FILE_BYTES + ", as a video file is read whole; cut a long recording into parts, or"
                        + " stoker ingest it into shards)", null);
            }
        } catch (IOException e) {
            throw new LoaderException(FailureReason.IO_ERROR, path + ": cannot read: " + e.getMessage(), e);
        }
    }

    /** Lists a folder of images, draws its clips as demux would, and reads the frames they show. */
    private FetchedVideo fetchFolder(VideoTask task, Path path) {
        FrameFolder folder = FrameFolder.list(path);
        try (Video skeleton = folder.skeleton(options.clip().frameFolderFps())) {
            double[] starts = DemuxStage.clipStarts(options, sampler, task, skeleton);
            BitSet wanted = new BitSet(folder.frameCount());
            for (int i = 0; i < starts.length; i++) {
                for (int frame : skeleton.selectClip(VideoFront.clip(options, task, i, starts[i])).frames()) {
                    wanted.set(frame);
                }
            }
            FrameFolder.Frames read = folder.read(wanted, hook); // the hook runs before each frame file
            return new FetchedVideo(task, read.bytes(), new FetchedVideo.Folder(folder.codec(), read.width(),
                    read.height(), folder.frameCount(), read.indices(), read.offsets(), starts));
        }
    }
}
