package dev.stoker.gpu;

import java.util.Locale;

/**
 * One decode pool of a hybrid loader at one moment: the stage table's row for it.
 *
 * @param name          {@code nvdec} or {@code cpu}
 * @param workers       sessions or threads in the pool
 * @param videos        videos it decoded
 * @param clips         clips it decoded
 * @param decodedFrames frames its decoders decoded, output or not
 * @param busyFraction  share of the pool's worker time spent decoding, since the pool started
 */
public record DecodePoolStats(String name, int workers, long videos, long clips, long decodedFrames,
                              double busyFraction) {
    /** {@code pool nvdec     7 workers   412 videos   412 clips  busy  93%}. */
    public String line() {
        return String.format(Locale.ROOT, "pool %-6s %4d workers %7d videos %7d clips %9d frames  busy %3.0f%%", name,
                workers, videos, clips, decodedFrames, busyFraction * 100);
    }
}
