package dev.stoker.video;

import static org.bytedeco.ffmpeg.global.avcodec.AV_PKT_FLAG_KEY;

import dev.stoker.loader.clip.VideoInfo;
import dev.stoker.loader.dataset.internal.FileStamp;
import dev.stoker.video.internal.FrameFolder;
import dev.stoker.video.internal.ProbeResult;
import java.nio.file.Files;
import java.nio.file.Path;


/**
 * Opens a video once the way the loader does and decodes its first group of pictures, to tell before a long job
 * whether the file will load: the container and its video stream are read (every packet of it, as demux does),
 * the index must reach the end of the file, and the first GOP must decode without an error. Duration and frame
 * count come from the index, so cost nothing more. Thread-safe (each call has its own demuxer and decoder).
 */
public final class VideoProbe {
    /**
     * Packets of the first GOP decoded at most: a scan must stay cheap on files that are a single GOP (some
     * encoders put one keyframe in a whole clip), and damage near the start is what a short decode finds.
     */
    static final int MAX_DECODED_PACKETS = 300;

    private VideoProbe() {
    }

    /** Probes {@code file}; never throws: a bad file's result says why, an unexpected error is {@code internal}. */
    public static ProbeResult probe(Path file) {
        return probe(file, FrameFolder.DEFAULT_FPS);
    }

    /**
     * {@link #probe(Path)}, a video stored as a folder of frames playing at {@code frameFolderFps}: its listing, and a
     * decode of its first frame (its first GOP).
     */
    public static ProbeResult probe(Path file, double frameFolderFps) {
        long start = System.nanoTime();
        String path = file.toString();
        long size = sizeOf(file);
        FfmpegNatives.ready();
        FfmpegLog.clear();
        try (Video video = Files.isDirectory(file) ? FrameFolder.list(file).firstFrame(frameFolderFps) : Video.open(file)) {
            VideoInfo info = video.info();
            FfmpegLog.clear(); // what the decode logs, not what the demuxer shrugged off
            if (!info.indexComplete()) {
                return failed(path, size, FailureReason.TRUNCATED, VideoException.Operation.INDEX, "reading stopped after "
                        + info.packetCount() + " packets of the video stream (" + info.frameCount()
                        + " frames): the file ends early or is damaged there", info, 0, start);
            }
            FirstGop gop = decodeFirstGop(video);
            if (gop.errors() > 0 || gop.frames() == 0) {
                String detail = (gop.errors() > 0 ? gop.errors() + " decode error(s)" : "no frame") + " in the first "
                        + gop.packets() + " packets" + (gop.errors() > 0 ? ", first: " + gop.firstError() : "");
                return failed(path, size, FailureReason.CORRUPT, VideoException.Operation.DECODE, detail, info, gop.frames(), start);
            }
            return new ProbeResult(path, size, null, "", "", info.container(), info.codec(), info.displayWidth(),
                    info.displayHeight(), info.durationSeconds(), info.frameCount(), gop.frames(), System.nanoTime() - start);
        } catch (VideoException e) {
            return new ProbeResult(path, size, e.reason(), e.operation().toString(), String.valueOf(e.detail()), "", "", 0, 0, 0,
                    0, 0, System.nanoTime() - start);
        } catch (RuntimeException | OutOfMemoryError e) {
            // Not the file's fault as far as anyone knows (a huge file's packets, a bug): said, not quarantined, and
            // the scan of the other files goes on.
            return new ProbeResult(path, size, FailureReason.INTERNAL, "probe", String.valueOf(e), "", "", 0, 0, 0, 0, 0,
                    System.nanoTime() - start);
        }
    }

    /** What decoding the first GOP gave: frames out, packets sent, errors and the first one described. */
    private record FirstGop(int frames, int packets, int errors, String firstError) {
    }

    /** Decodes from the first keyframe up to the next one (at most {@link #MAX_DECODED_PACKETS} packets) and drains. */
    private static FirstGop decodeFirstGop(Video video) {
        PacketStore packets = video.packets();
        int first = 0;
        while (first < packets.count() && (packets.flags(first) & AV_PKT_FLAG_KEY) == 0) {
            first++;
        }
        if (first == packets.count()) {
            first = 0; // no packet flagged: decode from the start, as the loader would
        }
        int[] frames = {0};
        int errors = 0;
        String firstError = null;
        int sent = 0;
        try (DecoderContext decoder = DecoderContext.open(video, 1)) {
            for (int i = first; ; i++) {
                boolean end = i == packets.count() || sent == MAX_DECODED_PACKETS
                        || i > first && (packets.flags(i) & AV_PKT_FLAG_KEY) != 0;
                int result = end ? decoder.drain(f -> frames[0]++) : decoder.feed(packets, i, true, f -> frames[0]++);
                if (result < 0 && result != Ffmpeg.EAGAIN) {
                    // Described now: FFmpeg's log line of this error, before later packets log others.
                    firstError = firstError == null ? Ffmpeg.describe(result) : firstError;
                    errors++;
                }
                if (end) {
                    break;
                }
                sent++;
            }
        }
        return new FirstGop(frames[0], sent, errors, firstError);
    }

    private static ProbeResult failed(String path, long size, FailureReason reason, VideoException.Operation operation,
                                      String detail, VideoInfo info, int frames, long startNanos) {
        return new ProbeResult(path, size, reason, operation.toString(), detail, info.container(), info.codec(), info.displayWidth(),
                info.displayHeight(), info.durationSeconds(), info.frameCount(), frames, System.nanoTime() - startNanos);
    }

    /** A file's bytes; a folder's, its files' (its frames and whatever lies beside them); -1 when unreadable. */
    private static long sizeOf(Path file) {
        return FileStamp.of(file).sizeBytes();
    }
}
