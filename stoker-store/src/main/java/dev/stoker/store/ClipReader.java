package dev.stoker.store;

import dev.stoker.video.ClipRequest;
import dev.stoker.video.DecodedClip;
import java.util.List;

/**
 * Reads clips of the samples of one {@link ShardDataset} into caller memory, with exactly the semantics
 * of {@link dev.stoker.video.ClipDecoder}: a {@link dev.stoker.video.ClipSpec} selects frames on the
 * stored timeline (frame-exact, same past-end policies), a {@link dev.stoker.video.Resize} scales and
 * crops them, and frame k of a clip lands at {@code k * width * height * 3} in the request's destination
 * (RGB24, HWC). Only the clip's frames are read (for the video format: from the keyframe at or before
 * the clip's first frame); their checksums are checked before decoding.
 *
 * <p>One reader per thread (not thread-safe); {@link ShardDataset#newReader()} makes them. Close it to
 * free its decoders.
 */
public interface ClipReader extends AutoCloseable {

    /**
     * Reads one clip of sample {@code sample}.
     *
     * @throws ShardException when the sample's record is damaged (checksum, offset, truncation, version)
     * @throws dev.stoker.video.VideoException when the clip cannot be selected (past-end policy SKIP)
     *         or decoded
     */
    default DecodedClip read(int sample, ClipRequest request) {
        return read(sample, List.of(request)).getFirst();
    }

    /** Reads several clips of one sample; frames they share are decoded once. */
    List<DecodedClip> read(int sample, List<ClipRequest> requests);

    /** Frames the decoders produced so far (a cost measure: divided by clips, the cost of a clip). */
    long decodedFrames();

    @Override
    void close();
}
