package dev.stoker.store;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import dev.stoker.store.internal.MappedClip;
import dev.stoker.store.internal.ShardException;
import dev.stoker.video.ClipRequest;
import java.util.List;

/**
 * Reads clips of the samples of one {@link ShardDataset} into caller memory, with exactly the semantics
 * of {@link dev.stoker.video.ClipDecoder}: a {@link dev.stoker.loader.clip.ClipSpec} selects frames on the
 * stored timeline (frame-exact, same past-end policies), a {@link dev.stoker.loader.clip.Resize} scales and
 * crops them, and frame k of a clip lands at {@code k * width * height * 3} in the request's destination
 * (RGB24, HWC). Only the clip's frames are read (for the video format: from the keyframe at or before
 * the clip's first frame); their checksums are checked before decoding, as the dataset's {@link Verification}
 * says.
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

    /**
     * Where clip c ({@code specs.get(c)} at {@code resizes.get(c)}) of sample {@code sample} lies in the mapped
     * shard, when every clip is a plain cut of stored frames ({@code raw} shards at their stored scale: no
     * resize, or a crop whose short side is the stored one); null when they need decoding ({@link #read}).
     * Selects and verifies like {@link #read} but copies nothing: {@link MappedClip#copyTo} copies each pixel
     * once, straight to its consumer.
     *
     * @throws ShardException when the sample's record is damaged
     * @throws dev.stoker.video.VideoException when a clip cannot be selected (past-end policy SKIP)
     */
    List<MappedClip> locate(int sample, List<ClipSpec> specs, List<Resize> resizes);

    /** Frames the decoders produced (or, for raw frames, copied or located) so far (a cost measure: divided by clips, the cost of a clip). */
    long decodedFrames();

    @Override
    void close();
}
