package dev.stoker.video.loader.internal;

import dev.stoker.loader.FetchHook;
import dev.stoker.video.FailureReason;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.function.Function;

/** Reads a whole video file into memory: the one stage that waits on storage. Runs the fetch hook, if any, first. */
public final class FetchStage implements Function<VideoTask, FetchedVideo> {
    private final FetchHook hook;

    FetchStage(FetchHook hook) {
        this.hook = hook;
    }

    @Override
    public FetchedVideo apply(VideoTask task) {
        Path path = task.entry().path();
        if (hook != null) {
            try {
                hook.beforeRead(path);
            } catch (IOException e) {
                throw new LoaderException(FailureReason.IO_ERROR, path + ": before reading it, " + hook.getClass().getSimpleName()
                        + " failed: " + e.getMessage(), e);
            }
        }
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(path);
        } catch (NoSuchFileException e) {
            throw new LoaderException(FailureReason.NOT_FOUND, path + ": no such file", e);
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
}
