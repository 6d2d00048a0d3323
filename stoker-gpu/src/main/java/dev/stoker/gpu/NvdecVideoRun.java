package dev.stoker.gpu;

import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.clip.VideoInfo;
import dev.stoker.video.internal.ClipSelection;
import dev.stoker.video.Video;
import dev.stoker.video.VideoPackets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One video's clips through an {@link NvdecSession}: which frames are wanted (the CPU path's selection,
 * {@link Video#selectClip}), which packets are fed (from each range's keyframe up to its last wanted frame's packet, no
 * further), which pictures are decoded (a non-reference picture nobody wants is not), which are mapped (only wanted
 * ones), and when each clip's kernel is launched (once all its frames are mapped: one launch a clip). Mapped surfaces
 * are unmapped only after the event recorded behind the launches that read them has completed; normally that is one
 * host wait, at the end of the video. Frames are identified by their packet's pts, which the parser hands back with
 * each picture in display order: the run is for videos whose packets' pts name their frames.
 */
final class NvdecVideoRun {
    final Video video;
    final VideoPackets packets;
    final List<DeviceClipDecoder.Target> targets;
    private final boolean skipNonReference;
    private final BatchLayout layout;
    private final int[][] clipFrames;
    private final ClipSelection[] selections;
    private final int[] outWidth;
    private final int[] outHeight;
    private final Resize.Framing[] framings;
    /** Wanted frames, distinct and sorted (so their timestamps are sorted too); targets of each: (clip, slot) pairs. */
    final int[] wanted;
    final long[] wantedTimestamps;
    private final int[] wantedPacket;
    private final int[][] wantedTargets;
    private final NvdecApi.MappedFrame[] mapped;
    /** Clips whose launch has not yet covered wanted frame i; 0: its surface may be unmapped once the stream passes. */
    private final int[] pendingClips;
    private final int[] remainingFrames;
    private final int[] decodedPerClip;
    private final boolean[] unmapped;
    private final ClipKernelJob[] jobs;
    private final boolean[] jobStarted;
    private int owner;

    /**
     * @param layout the clips' layout in their buffers (one clip of the batch)
     * @param jobs   one reusable kernel job per clip, at least {@code targets.size()}
     */
    NvdecVideoRun(Video video, List<DeviceClipDecoder.Target> targets, BatchLayout layout, boolean skipNonReference,
                  ClipKernelJob[] jobs) {
        this.video = video;
        this.layout = layout;
        this.packets = video.asPackets();
        this.targets = targets;
        this.skipNonReference = skipNonReference;
        this.jobs = jobs;
        VideoInfo info = video.info();
        int clips = targets.size();
        clipFrames = new int[clips][];
        selections = new ClipSelection[clips];
        outWidth = new int[clips];
        outHeight = new int[clips];
        framings = new Resize.Framing[clips];
        remainingFrames = new int[clips];
        decodedPerClip = new int[clips];
        jobStarted = new boolean[clips];
        int total = 0;
        for (int c = 0; c < clips; c++) {
            DeviceClipDecoder.Target t = targets.get(c);
            selections[c] = video.selectClip(t.spec());
            clipFrames[c] = selections[c].frames();
            total += clipFrames[c].length;
            Resize resize = t.resize();
            outWidth[c] = resize.outputWidth(info);
            outHeight[c] = resize.outputHeight(info);
            framings[c] = resize.framing();
        }
        // (frame, clip, slot) triples sorted by frame, packed in longs as ClipRun packs them.
        long[] triples = new long[total];
        int n = 0;
        for (int c = 0; c < clips; c++) {
            for (int s = 0; s < clipFrames[c].length; s++) {
                triples[n++] = ((long) clipFrames[c][s] << 40) | ((long) c << 20) | s;
            }
        }
        Arrays.sort(triples);
        int[] frames = new int[total];
        int distinct = 0;
        int[] starts = new int[total + 1];
        for (int i = 0; i < total; i++) {
            int frame = (int) (triples[i] >>> 40);
            if (distinct == 0 || frames[distinct - 1] != frame) {
                frames[distinct] = frame;
                starts[distinct++] = i;
            }
        }
        starts[distinct] = total;
        wanted = Arrays.copyOf(frames, distinct);
        wantedTimestamps = new long[distinct];
        wantedTargets = new int[distinct][];
        pendingClips = new int[distinct];
        for (int w = 0; w < distinct; w++) {
            wantedTimestamps[w] = video.frameTimestamp(wanted[w]);
            int[] pairs = new int[2 * (starts[w + 1] - starts[w])];
            for (int i = starts[w], k = 0; i < starts[w + 1]; i++, k += 2) {
                pairs[k] = (int) ((triples[i] >>> 20) & 0xFFFFF);
                pairs[k + 1] = (int) (triples[i] & 0xFFFFF);
                remainingFrames[pairs[k]]++;
            }
            wantedTargets[w] = pairs;
            pendingClips[w] = distinctClips(pairs);
        }
        wantedPacket = new int[distinct];
        Arrays.fill(wantedPacket, -1);
        long[] pts = packets.pts();
        for (int p = 0; p < pts.length; p++) {
            int w = Arrays.binarySearch(wantedTimestamps, pts[p]);
            if (w >= 0 && wantedPacket[w] < 0) {
                wantedPacket[w] = p;
            }
        }
        mapped = new NvdecApi.MappedFrame[distinct];
        unmapped = new boolean[distinct];
    }

    private static int distinctClips(int[] pairs) {
        int count = 0;
        for (int k = 0; k < pairs.length; k += 2) {
            if (k == 0 || pairs[k] != pairs[k - 2]) {
                count++;
            }
        }
        return count;
    }

    /** The packet that carries wanted frame {@code w} (-1: none does; the frame then comes out of no packet's pts). */
    int packetOf(int w) {
        return wantedPacket[w];
    }

    /** Wanted frames not yet mapped, in order. */
    int[] missing() {
        int[] out = new int[wanted.length];
        int n = 0;
        for (int w = 0; w < wanted.length; w++) {
            if (mapped[w] == null && !unmapped[w]) {
                out[n++] = w;
            }
        }
        return Arrays.copyOf(out, n);
    }

    /** The wanted index of the frame with {@code timestamp}, or -1. */
    int wantedAt(long timestamp) {
        int w = Arrays.binarySearch(wantedTimestamps, timestamp);
        return w < 0 ? -1 : w;
    }

    /** Whether the picture of packet {@code packet} may be left undecoded when nothing references it. */
    boolean skippable(int packet) {
        return skipNonReference && packet >= 0 && wantedAt(packets.pts()[packet]) < 0;
    }

    /** Decoded pictures from now on count for the clip of wanted frame {@code w}. */
    void owner(int w) {
        owner = wantedTargets[w][0];
    }

    void countDecoded() {
        if (decodedPerClip.length > 0) {
            decodedPerClip[owner]++;
        }
    }

    boolean isMapped(int w) {
        return mapped[w] != null || unmapped[w];
    }

    /**
     * Wanted frame {@code w} is mapped at {@code frame} (NV12, chroma after {@code surfaceHeight} rows): it joins each
     * clip that shows it; a clip with every frame joined goes to {@code launcher}.
     */
    void mapped(int w, NvdecApi.MappedFrame frame, int surfaceWidth, int surfaceHeight, int colour, Launcher launcher) {
        mapped[w] = frame;
        long uv = frame.pointer() + (long) frame.pitch() * ((surfaceHeight + 1) & ~1);
        int[] pairs = wantedTargets[w];
        for (int k = 0; k < pairs.length; k += 2) {
            int clip = pairs[k];
            ClipKernelJob job = job(clip, surfaceWidth, surfaceHeight, colour);
            if (job.full()) {
                launcher.launch(clip, job);
                job.clearFrames();
            }
            job.add(frame.pointer(), frame.pitch(), uv, frame.pitch(), pairs[k + 1]);
            if (--remainingFrames[clip] == 0) {
                launcher.launch(clip, job);
                job.clearFrames();
                release(clip);
            }
        }
    }

    private ClipKernelJob job(int clip, int width, int height, int colour) {
        ClipKernelJob job = jobs[clip];
        if (!jobStarted[clip]) {
            DeviceClipDecoder.Target t = targets.get(clip);
            Resize.Window window = t.resize().sourceWindow(0, width, height, framings[clip], outWidth[clip],
                    outHeight[clip], 1, 1);
            job.reset(t.devicePointer(), layout, clipFrames[clip].length, outWidth[clip],
                    outHeight[clip], width, height, window, colour, framings[clip].mirrored());
            jobStarted[clip] = true;
        }
        return job;
    }

    /** Every frame of {@code clip} is covered by a launch: frames no other clip waits for may be unmapped. */
    private void release(int clip) {
        for (int w = 0; w < wanted.length; w++) {
            int[] pairs = wantedTargets[w];
            for (int k = 0; k < pairs.length; k += 2) {
                if (pairs[k] == clip) {
                    pendingClips[w]--;
                    break;
                }
            }
        }
    }

    /**
     * Launches what every started clip has collected (the output surfaces are all mapped and the clips still need
     * more): afterwards every mapped frame may be unmapped once the stream passes.
     */
    void launchPartial(Launcher launcher) {
        for (int c = 0; c < jobs.length && c < targets.size(); c++) {
            if (jobStarted[c] && jobs[c].frames() > 0) {
                launcher.launch(c, jobs[c]);
                jobs[c].clearFrames();
            }
        }
        for (int w = 0; w < wanted.length; w++) {
            if (mapped[w] != null) {
                pendingClips[w] = 0;
            }
        }
    }

    /** Unmaps, through {@code unmapper}, every mapped frame no unlaunched clip needs; returns how many. */
    int unmapReleased(Unmapper unmapper) {
        int n = 0;
        for (int w = 0; w < wanted.length; w++) {
            if (mapped[w] != null && pendingClips[w] == 0) {
                NvdecApi.MappedFrame frame = mapped[w];
                mapped[w] = null;
                unmapped[w] = true;
                unmapper.unmap(frame);
                n++;
            }
        }
        return n;
    }

    /** Unmaps every mapped frame (after a failure, once the stream is idle). */
    void unmapAll(Unmapper unmapper) {
        for (int w = 0; w < wanted.length; w++) {
            if (mapped[w] != null) {
                NvdecApi.MappedFrame frame = mapped[w];
                mapped[w] = null;
                unmapper.unmap(frame);
            }
        }
    }

    /** What was decoded, clip by clip, as {@link dev.stoker.video.ClipDecoder} reports it. */
    List<DecodedClip> results() {
        List<DecodedClip> out = new ArrayList<>(targets.size());
        for (int c = 0; c < targets.size(); c++) {
            List<Integer> indices = new ArrayList<>(clipFrames[c].length);
            List<Double> times = new ArrayList<>(clipFrames[c].length);
            for (int frame : clipFrames[c]) {
                indices.add(frame);
                times.add(video.frameTimeSeconds(frame));
            }
            out.add(new DecodedClip(video.info().path(), outWidth[c], outHeight[c], indices, times, decodedPerClip[c],
                    selections[c].shifted(), selections[c].repeatedFrames()));
        }
        return out;
    }

    /** Queues a clip job's launch. */
    interface Launcher {
        void launch(int clip, ClipKernelJob job);
    }

    interface Unmapper {
        void unmap(NvdecApi.MappedFrame frame);
    }
}
