package dev.stoker.video.loader.internal;

import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.video.DecodedFrames;
import java.util.List;

/**
 * A video's clips decoded but not converted: the decoder's pictures of every wanted frame, the clip
 * buffers the convert stage will write into, and where each clip starts. Closing releases all of it
 * (the convert stage takes the buffers over and closes only the frames).
 */
public record DecodedVideo(VideoTask task, double[] clipStarts, DecodedFrames frames, List<ClipBatch> buffers)
        implements AutoCloseable {
    @Override
    public void close() {
        frames.close();
        buffers.forEach(ClipBatch::close);
    }

    @Override
    public String toString() { return task.toString(); }
}
