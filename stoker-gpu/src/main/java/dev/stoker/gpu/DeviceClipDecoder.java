package dev.stoker.gpu;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import dev.stoker.video.Video;
import java.util.List;

/**
 * Decodes the clips of one video straight into device memory: the seam between the NVDEC stage and what
 * decodes. {@link NvdecDecoder} decodes on the GPU's NVDEC engines; {@link CpuClipUploader} decodes on the
 * CPU and copies the clips up (NVDEC's fallback, and with a fake device what tests drive the stage with).
 * One per worker thread, reused from video to video; not thread-safe.
 */
interface DeviceClipDecoder extends AutoCloseable {

    /**
     * Writes clip {@code i}'s frames into {@code clips.get(i)}'s device buffer, laid out as one clip of the
     * batch (T×H×W×C for NTHWC batches, C×T×H×W for NCTHW), complete on return.
     *
     * @throws dev.stoker.video.VideoException naming path, operation and reason when the video cannot be decoded
     */
    Decoded decode(Video video, List<Target> clips);

    /** Frees the decoder's sessions and buffers. */
    @Override
    void close();

    /**
     * One clip to decode: which frames ({@code spec}, selected as the CPU path selects them), at what size
     * ({@code resize}), into which device buffer.
     */
    record Target(ClipSpec spec, Resize resize, long devicePointer, long bytes) {
    }

    /**
     * What was decoded.
     *
     * @param clips             each clip's frames, times and cost, as {@link dev.stoker.video.ClipDecoder} reports them
     * @param cpuFallbackReason why the clips were decoded on the CPU instead (NVDEC cannot decode the video);
     *                          null when they were decoded on the device
     * @param path              which path decoded them
     */
    record Decoded(List<DecodedClip> clips, String cpuFallbackReason, DecodePath path) {
        public Decoded {
            clips = List.copyOf(clips);
        }

        /** Decoded on {@code path}, or by the CPU fallback when {@code cpuFallbackReason} is given. */
        Decoded(List<DecodedClip> clips, String cpuFallbackReason) {
            this(clips, cpuFallbackReason, cpuFallbackReason != null ? DecodePath.CPU_FALLBACK : DecodePath.FFMPEG_NVDEC);
        }

        /** The same clips, said to be decoded by {@code path}. */
        Decoded on(DecodePath by) {
            return cpuFallbackReason != null ? this : new Decoded(clips, null, by);
        }
    }
}
