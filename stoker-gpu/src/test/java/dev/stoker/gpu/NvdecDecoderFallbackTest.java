package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.BatchShape;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.Resize;
import dev.stoker.video.FailureReason;
import dev.stoker.video.Video;
import dev.stoker.video.VideoException;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link NvdecDecoder}'s decisions without a GPU: it runs with FFmpeg decoding in software (no CUDA device
 * context), so every frame comes back in host memory, which is exactly what a stream NVDEC cannot decode
 * looks like. Such videos, and those known unsupported before decoding, go to the CPU fallback, whose bytes
 * are the CPU path's; without a fallback they fail as {@code unsupported-codec}, naming path and why.
 */
class NvdecDecoderFallbackTest {
    private static final BatchShape CLIP = new BatchShape(1, 4, 32, 32, 3, BatchLayout.NCTHW);

    private final FakeDevice device = new FakeDevice(true);
    private final AtomicInteger draws = new AtomicInteger();
    private final AtomicInteger finishes = new AtomicInteger();
    private final NvdecDecoder.SurfaceDrawer drawer = new NvdecDecoder.SurfaceDrawer() {
        @Override
        public void draw(long y, int yPitch, long uv, int uvPitch, int width, int height, Resize.Window window,
                         Nv12Kernel.Destination destination, int colour) {
            draws.incrementAndGet();
        }

        @Override
        public void finish() {
            finishes.incrementAndGet();
        }
    };
    private final DeviceBufferPool buffers = new DeviceBufferPool(device, "clip", CLIP.batchBytes(), 4);

    @AfterEach
    void free() {
        buffers.close();
    }

    private NvdecDecoder decoder(boolean fallback) {
        return new NvdecDecoder(device.id(), null, drawer, CLIP, true,
                fallback ? () -> new CpuClipUploader(device, CLIP, 1, true) : null, null);
    }

    private DeviceClipDecoder.Target target(DeviceBufferPool.Buffer buffer, ClipSpec spec) {
        return new DeviceClipDecoder.Target(spec, Resize.randomCrop(40, 32, 32, 9), buffer.pointer(), buffer.byteSize());
    }

    /** The bytes the CPU path writes for the same clips. */
    private byte[] cpuBytes(Video video, ClipSpec spec) throws InterruptedException {
        try (DeviceBufferPool.Buffer b = buffers.acquire(); CpuClipUploader cpu = new CpuClipUploader(device, CLIP, 1, true)) {
            cpu.decode(video, List.of(target(b, spec)));
            return FakeDevice.deviceBytes(b.pointer(), b.byteSize()).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    @Test
    void framesThatComeBackInHostMemoryGoToTheCpuFallbackNamingWhy() throws InterruptedException {
        ClipSpec spec = ClipSpec.frames(1.0, 4, 2);
        try (Video video = Video.open(NvdecSupportedVideosTest.sample("mmaction2_test_340x256.mp4"));
             NvdecDecoder nvdec = decoder(true);
             DeviceBufferPool.Buffer b = buffers.acquire()) {
            assertThat(NvdecCodecs.unsupportedReason(video.info())).as("nothing known against it before decoding").isNull();
            DeviceClipDecoder.Decoded decoded = nvdec.decode(video, List.of(target(b, spec)));
            assertThat(decoded.cpuFallbackReason()).isEqualTo("frames came back as yuv420p in host memory: NVDEC cannot"
                    + " decode this stream (FFmpeg decoded it in software)");
            assertThat(draws).hasValue(0);
            assertThat(finishes).as("queued draws waited for before the buffers are reused").hasValue(1);
            assertThat(FakeDevice.deviceBytes(b.pointer(), b.byteSize()).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(cpuBytes(video, spec));
            assertThat(decoded.clips().getFirst().frameIndices()).hasSize(4);
        }
    }

    @Test
    void aVideoKnownUnsupportedBeforeDecodingGoesStraightToTheFallback() throws InterruptedException {
        ClipSpec spec = ClipSpec.frames(0, 4, 1).withPastEnd(dev.stoker.loader.clip.PastEndPolicy.REPEAT_LAST);
        try (Video video = Video.open(NvdecSupportedVideosTest.sample("decord_rot90.mov"));
             NvdecDecoder nvdec = decoder(true);
             DeviceBufferPool.Buffer b = buffers.acquire()) {
            DeviceClipDecoder.Decoded decoded = nvdec.decode(video, List.of(target(b, spec)));
            assertThat(decoded.cpuFallbackReason()).isEqualTo("display rotation 90 degrees (the GPU kernel does not rotate)");
            assertThat(finishes).as("no NVDEC attempt").hasValue(0);
            assertThat(FakeDevice.deviceBytes(b.pointer(), b.byteSize()).toArray(ValueLayout.JAVA_BYTE))
                    .isEqualTo(cpuBytes(video, spec));
        }
    }

    @Test
    void tenBitFramesAreNamedByTheirFormat() throws InterruptedException {
        try (Video video = Video.open(NvdecSupportedVideosTest.sample("torchcodec_h264_10bit.mp4"));
             NvdecDecoder nvdec = decoder(true);
             DeviceBufferPool.Buffer b = buffers.acquire()) {
            assertThat(nvdec.decode(video, List.of(target(b, ClipSpec.frames(0, 4, 1)))).cpuFallbackReason())
                    .startsWith("frames came back as yuv420p10le in host memory");
        }
    }

    @Test
    void withoutAFallbackSuchAVideoFailsAsUnsupportedCodecNamingPathAndWhy() throws InterruptedException {
        try (Video video = Video.open(NvdecSupportedVideosTest.sample("decord_rot90.mov"));
             NvdecDecoder nvdec = decoder(false);
             DeviceBufferPool.Buffer b = buffers.acquire()) {
            assertThatThrownBy(() -> nvdec.decode(video, List.of(target(b, ClipSpec.frames(0, 2, 1)))))
                    .isInstanceOfSatisfying(VideoException.class, e -> {
                        assertThat(e.reason()).isEqualTo(FailureReason.UNSUPPORTED_CODEC);
                        assertThat(e.operation()).isEqualTo(VideoException.Operation.NVDEC);
                        assertThat(e.path()).endsWith("decord_rot90.mov");
                    })
                    .hasMessageEndingWith("display rotation 90 degrees (the GPU kernel does not rotate); CPU fallback is off");
        }
    }
}
