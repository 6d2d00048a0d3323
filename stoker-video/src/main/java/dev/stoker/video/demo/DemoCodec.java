package dev.stoker.video.demo;

import java.util.Map;

/**
 * Codec and container pairs the generator writes. H.264 in MP4 dominates, as in Kinetics; a few VP8
 * and AV1 files make a loader meet the codec mix that real crawled datasets have.
 */
enum DemoCodec {
    // Long GOPs like YouTube-derived Kinetics files: seeking to a clip costs decoding from a far keyframe.
    H264_MP4("libopenh264", "mp4", "mp4", 450_000,
            Map.of("rc_mode", "bitrate", "allow_skip_frames", "0")),
    // realtime + high cpu-used keeps libvpx near openh264's speed; lag 0 keeps frame count exact.
    VP8_WEBM("libvpx", "webm", "webm", 450_000,
            Map.of("deadline", "realtime", "cpu-used", "8", "lag-in-frames", "0", "auto-alt-ref", "0")),
    // libaom rather than SVT-AV1: SVT logs to stderr past av_log, which would litter the CLI.
    AV1_MKV("libaom-av1", "matroska", "mkv", 300_000,
            Map.of("usage", "realtime", "cpu-used", "8", "lag-in-frames", "0", "row-mt", "0"));

    final String encoderName;
    final String containerName;
    final String extension;
    final long bitsPerSecond;
    final Map<String, String> encoderOptions;

    DemoCodec(String encoderName, String containerName, String extension, long bitsPerSecond,
              Map<String, String> encoderOptions) {
        this.encoderName = encoderName;
        this.containerName = containerName;
        this.extension = extension;
        this.bitsPerSecond = bitsPerSecond;
        this.encoderOptions = encoderOptions;
    }

    /**
     * Deterministic codec mix over the global clip index: one clip in ten is VP8, one in fifty AV1
     * (the rest H.264), spread so that every class of a large dataset sees a mix.
     */
    static DemoCodec forClip(int globalIndex) {
        if (globalIndex % 50 == 27) {
            return AV1_MKV;
        }
        if (globalIndex % 10 == 3) {
            return VP8_WEBM;
        }
        return H264_MP4;
    }
}
