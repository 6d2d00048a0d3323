package dev.stoker.bench.internal;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.stoker.loader.batch.ClipInfo;
import java.util.List;
import java.util.Locale;

/**
 * Why the first batch took as long as it did: the least time any schedule of its clips could take on this
 * machine. The batch is ready when its last clip is; a clip decodes on one thread, so the batch takes at
 * least its slowest clip's time, and at least its clips' total time spread over every core. Both are
 * measured after the run, each clip alone on one warm thread, so they leave out what a first batch pays on
 * top (starting the JVM's compiler, opening FFmpeg's libraries): the gap to {@code seconds} is that, plus
 * the pipeline's own scheduling.
 *
 * @param seconds            the first batch as measured, from opening the loader
 * @param slowestClip        the batch's slowest clip, alone
 * @param slowestClipSeconds its time
 * @param slowestClipFrames  frames decoded for it (the seek from the keyframe included)
 * @param clips              clips in the batch
 * @param workSeconds        every clip of the batch, one after another
 * @param cores              cores to share that work
 * @param boundSeconds       {@code max(slowestClipSeconds, workSeconds / cores)}
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record FirstBatchBound(double seconds,
                       String slowestClip,
                       double slowestClipSeconds,
                       @JsonProperty("slowest_clip_frames_decoded") int slowestClipFrames,
                       int clips,
                       double workSeconds,
                       int cores,
                       double boundSeconds) {

    /** {@code alone[i]}: seconds of {@code clips.get(i)} alone. */
    public static FirstBatchBound of(double seconds, List<ClipInfo> clips, double[] alone, int cores) {
        if (clips.isEmpty() || clips.size() != alone.length) {
            throw new IllegalArgumentException("clips: " + clips.size() + ", timings: " + alone.length + " (expected: as many, 1+)");
        }
        int slowest = 0;
        double work = 0;
        for (int i = 0; i < alone.length; i++) {
            work += alone[i];
            if (alone[i] > alone[slowest]) {
                slowest = i;
            }
        }
        ClipInfo c = clips.get(slowest);
        return new FirstBatchBound(seconds, c.path().toString(), alone[slowest], c.framesDecoded(), alone.length, work, cores,
                Math.max(alone[slowest], work / cores));
    }

    /** The bench summary's line after "first batch". */
    public String explanation() {
        return String.format(Locale.ROOT, "no schedule beats %.2f s here: its slowest clip takes %.2f s alone (%s, %d frames"
                        + " decoded), its %d clips %.2f s of work for %d cores", boundSeconds, slowestClipSeconds,
                java.nio.file.Path.of(slowestClip).getFileName(), slowestClipFrames, clips, workSeconds, cores);
    }
}
