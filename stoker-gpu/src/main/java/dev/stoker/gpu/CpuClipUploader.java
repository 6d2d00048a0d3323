package dev.stoker.gpu;

import dev.stoker.loader.batch.BatchCollator;
import dev.stoker.loader.batch.BatchPool;
import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.ClipInfo;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.video.ClipDecoder;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.Video;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes clips on the CPU, exactly as the CPU loader does ({@link ClipDecoder}: same frames, same
 * swscale conversion), lays each out as one clip of the batch in pinned memory and copies it to its
 * device buffer. The NVDEC path's fallback for videos NVDEC cannot decode; against a fake device, a decode
 * session whose output the CPU loader's batches can be compared with byte for byte.
 */
final class CpuClipUploader implements DeviceClipDecoder {
    private final BatchShape clipShape;
    private final ClipDecoder decoder;
    private final BatchPool staging;
    private final GpuStream stream;
    private Arena scratchArena;
    private MemorySegment scratch;

    /**
     * @param clipShape one clip of the batch: its frames, size and layout
     */
    CpuClipUploader(GpuDevice device, BatchShape clipShape, int decoderThreads, boolean skipNonReferenceFrames) {
        if (clipShape.clipsPerBatch() != 1) {
            throw new IllegalArgumentException("clipShape: " + clipShape.clipsPerBatch() + " clips (expected: 1)");
        }
        this.clipShape = clipShape;
        this.stream = device.createStream();
        this.staging = new BatchPool(clipShape, clipShape.batchBytes(), new PinnedMemory(device.hostAllocator()));
        this.decoder = new ClipDecoder(decoderThreads, skipNonReferenceFrames);
    }

    @Override
    public Decoded decode(Video video, List<Target> clips) {
        long clipBytes = clipShape.clipBytes();
        for (Target t : clips) {
            if (t.bytes() < clipBytes) {
                throw new IllegalArgumentException("target: " + t.bytes() + " bytes (expected: " + clipBytes
                        + "+, one clip of " + clipShape + ")");
            }
        }
        MemorySegment frames = scratch(clips.size() * clipBytes);
        List<ClipRequest> requests = new ArrayList<>(clips.size());
        for (int i = 0; i < clips.size(); i++) {
            requests.add(new ClipRequest(clips.get(i).spec(), clips.get(i).resize(), frames.asSlice(i * clipBytes, clipBytes)));
        }
        List<DecodedClip> decoded = decoder.decode(video, requests);
        for (int i = 0; i < decoded.size(); i++) {
            upload(frames.asSlice(i * clipBytes, clipBytes), decoded.get(i), clips.get(i).devicePointer());
        }
        return new Decoded(decoded, null);
    }

    /** Lays the THWC clip out as the batch does (a transpose for NCTHW) in pinned memory, then copies it up. */
    private void upload(MemorySegment thwc, DecodedClip clip, long devicePointer) {
        try (ClipBatch pinned = Waits.await("the staging buffer", staging::acquire)) {
            double[] times = clip.ptsSeconds().stream().mapToDouble(Double::doubleValue).toArray();
            BatchCollator.put(pinned, 0, thwc, new ClipInfo(Path.of(clip.path()), 0, times, clip.decodedFrames()));
            stream.copyToDeviceAsync(pinned.data(), devicePointer);
            stream.synchronize(); // the staging buffer is reused for the next clip
        }
    }

    private MemorySegment scratch(long bytes) {
        if (scratch == null || scratch.byteSize() < bytes) {
            if (scratchArena != null) {
                scratchArena.close();
            }
            scratchArena = Arena.ofShared(); // closed by whichever thread closes the loader
            scratch = scratchArena.allocate(bytes, 64);
        }
        return scratch.asSlice(0, bytes);
    }

    @Override
    public void close() {
        try {
            decoder.close();
            stream.close();
        } finally {
            staging.close();
            if (scratchArena != null) {
                scratchArena.close();
                scratchArena = null;
            }
        }
    }
}
