package dev.stoker.loader;

import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.DecodedClip;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A decoded clip waiting to be collated, whatever holds its pixels (a pooled one-clip buffer, a mapped shard):
 * {@link CollateStage} copies it into a batch slot and then closes it, giving back what holds the pixels.
 */
public interface CollatableClip extends AutoCloseable {
    /** The video the clip was cut from (what the batch's {@link ClipInfo} names). */
    Path sourcePath();

    int label();

    /** Its sample's text in the dataset (what the batch's {@link ClipInfo#text()} carries); empty when none. */
    Optional<String> text();

    DecodedClip decoded();

    /**
     * The decode lead of the clip's first frame in {@link #sourcePath()}, by that video's index (what
     * {@link ClipInfo#leadFrames()} reports): the decoder's, unless the clip was decoded from another copy of
     * the video (a shard's own keyframes are not its source's).
     */
    default int leadFrames() {
        return decoded().leadFrames();
    }

    /** Copies the pixels into slot {@code slot} of {@code batch} and records {@code info} there. */
    void writeTo(ClipBatch batch, int slot, ClipInfo info);

    @Override
    void close();
}
