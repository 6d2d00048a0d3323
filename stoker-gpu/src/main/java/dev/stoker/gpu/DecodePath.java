package dev.stoker.gpu;

/** Which path decoded a clip: recorded for every clip a GPU loader delivers ({@link DeviceBatch#decodePaths()}). */
public enum DecodePath {
    /** Stoker's NVDEC session on the decode API itself ({@code libnvcuvid}): H.264 and HEVC. */
    NVDEC,
    /** FFmpeg's own decoder with its CUDA hwaccel (NVDEC too): the codecs the session does not cover. */
    FFMPEG_NVDEC,
    /** A CPU decode worker of the hybrid loader, by choice: the clip was routed to the CPU pool. */
    CPU,
    /** The CPU, because NVDEC cannot decode the video (the loader counts it with its reason). */
    CPU_FALLBACK
}
