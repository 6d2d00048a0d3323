package dev.stoker.store.ingest;

import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.clip.VideoInfo;
import dev.stoker.store.IngestOptions;
import dev.stoker.store.format.internal.DecodedSample;
import dev.stoker.video.ClipDecoder;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.FailureReason;
import dev.stoker.video.Video;
import dev.stoker.video.VideoException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.OptionalDouble;

/**
 * Decodes the part of a source video a sample covers into upright RGB24 frames at the stored size:
 * every source frame (keeping its timestamps), or frames resampled to {@code --fps} by the same rule
 * as {@link ClipSpec#resampled} (slot k shows the first frame at or after k / fps).
 */
final class SampleDecoder {
    private static final double EPSILON_SECONDS = 1e-6;

    private final IngestOptions options;
    private final boolean evenSize;

    SampleDecoder(IngestOptions options, boolean evenSize) {
        this.options = options;
        this.evenSize = evenSize;
    }

    /** The stored size for a source of {@code width x height} (displayed). */
    static int[] storedSize(int width, int height, IngestOptions options, boolean even) {
        double w;
        double h;
        if (options.width() > 0) {
            w = options.width();
            h = options.height();
        } else if (options.shortSide() > 0) {
            double scale = (double) options.shortSide() / Math.min(width, height);
            w = width * scale;
            h = height * scale;
        } else {
            w = width;
            h = height;
        }
        int outW = even ? (int) Math.max(2, 2 * Math.round(w / 2)) : (int) Math.max(1, Math.round(w));
        int outH = even ? (int) Math.max(2, 2 * Math.round(h / 2)) : (int) Math.max(1, Math.round(h));
        if (even && options.width() > 0) { // an explicit size is rounded down, never up
            outW = Math.max(2, options.width() & ~1);
            outH = Math.max(2, options.height() & ~1);
        }
        return new int[] {outW, outH};
    }

    /**
     * The stored frames (times {@code pts} ticks of {@code tick} s from the first) the source's keyframes in frames
     * {@code first..last} fell on: each the first stored frame at or after the keyframe's time. Keyframes before the
     * range are left out (the sample's decode lead counts from its first frame then).
     */
    static int[] storedKeyframes(Video video, int first, int last, long[] pts, double tick) {
        double firstTime = video.frameTimeSeconds(first);
        int[] keys = video.keyframeFrames();
        int[] stored = new int[keys.length];
        int n = 0;
        int k = 0;
        for (int key : keys) {
            if (key < first || key > last) {
                continue;
            }
            double at = video.frameTimeSeconds(key) - firstTime - EPSILON_SECONDS;
            while (k < pts.length && (pts[k] - pts[0]) * tick < at) {
                k++;
            }
            if (k < pts.length && (n == 0 || stored[n - 1] != k)) {
                stored[n++] = k;
            }
        }
        return java.util.Arrays.copyOf(stored, n);
    }

    DecodedSample decode(Video video, OptionalDouble rangeStart, OptionalDouble rangeEnd, ClipDecoder decoder) {
        VideoInfo info = video.info();
        int n = video.frameCount();
        double start = rangeStart.orElse(0);
        double end = rangeEnd.orElse(Double.POSITIVE_INFINITY);
        int first = 0;
        while (first < n && video.frameTimeSeconds(first) < start - EPSILON_SECONDS) {
            first++;
        }
        int last = n - 1;
        while (last >= first && video.frameTimeSeconds(last) >= end - EPSILON_SECONDS) {
            last--;
        }
        if (first >= n || last < first) {
            throw new VideoException(info.path(), VideoException.Operation.SELECT_RANGE, FailureReason.OUT_OF_RANGE,
                    "no frame in [" + start + ", " + end + ") s; the video has " + n + " frames over "
                            + String.format("%.3f", info.durationSeconds()) + " s");
        }
        double firstTime = video.frameTimeSeconds(first);
        int[] size = storedSize(info.displayWidth(), info.displayHeight(), options, evenSize);
        ClipSpec spec;
        long[] pts;
        long[] durations;
        int num;
        int den;
        double fps;
        if (options.framesPerSecond() > 0) {
            fps = options.framesPerSecond();
            int count = (int) Math.floor((video.frameTimeSeconds(last) - firstTime) * fps + EPSILON_SECONDS) + 1;
            spec = ClipSpec.resampled(firstTime, count / fps, fps).withPastEnd(PastEndPolicy.REPEAT_LAST);
            count = spec.frameCount();
            pts = new long[count];
            durations = new long[count];
            long rounded = Math.round(fps);
            if (Math.abs(fps - rounded) < 1e-9) {
                num = 1;
                den = (int) rounded;
                for (int k = 0; k < count; k++) {
                    pts[k] = k;
                    durations[k] = 1;
                }
            } else {
                num = 1;
                den = 1_000_000;
                for (int k = 0; k < count; k++) {
                    pts[k] = Math.round(k * 1e6 / fps);
                }
                for (int k = 0; k < count; k++) {
                    durations[k] = k + 1 < count ? pts[k + 1] - pts[k] : Math.round(1e6 / fps);
                }
            }
        } else {
            int count = last - first + 1;
            spec = ClipSpec.frames(firstTime, count, 1).withPastEnd(PastEndPolicy.SKIP);
            num = info.timeBaseNumerator();
            den = info.timeBaseDenominator();
            double tick = (double) num / den;
            fps = info.framesPerSecond();
            pts = new long[count];
            durations = new long[count];
            for (int k = 0; k < count; k++) {
                pts[k] = Math.round((video.frameTimeSeconds(first + k) - firstTime) / tick);
            }
            long nominal = fps > 0 ? Math.max(1, Math.round(1 / fps / tick)) : 1;
            for (int k = 0; k < count; k++) {
                durations[k] = k + 1 < count ? pts[k + 1] - pts[k] : nominal;
            }
        }
        long frameBytes = (long) size[0] * size[1] * 3;
        Arena arena = Arena.ofShared();
        try {
            MemorySegment frames = arena.allocate(frameBytes * pts.length, 64);
            decoder.decode(video, new ClipRequest(spec, Resize.stretch(size[0], size[1]), frames));
            return new DecodedSample(arena, frames, size[0], size[1], pts, durations, num, den, fps,
                    storedKeyframes(video, first, last, pts, (double) num / den));
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }
}
