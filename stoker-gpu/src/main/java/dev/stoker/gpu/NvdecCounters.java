package dev.stoker.gpu;

/** What one {@link NvdecSession} asked of the decode API; written on its thread, read there or after it stopped. */
final class NvdecCounters {
    long videos;
    long picturesDecoded;
    long picturesSkipped;
    long framesMapped;
    long clipLaunches;
    long hostWaits;
    long parserFlushes;
}
