package dev.stoker.loader.clip;

import java.util.Arrays;

/** {@link KeyframeIndex#of}: frame times and keyframes held as arrays (owned: the caller's were copied). */
record StoredKeyframeIndex(double[] frameSeconds, int[] keyframes) implements KeyframeIndex {
    StoredKeyframeIndex {
        for (int i = 1; i < frameSeconds.length; i++) {
            if (!(frameSeconds[i] > frameSeconds[i - 1])) {
                throw new IllegalArgumentException("frameSeconds[" + i + "]: " + frameSeconds[i]
                        + " (expected: above frameSeconds[" + (i - 1) + "], " + frameSeconds[i - 1] + ")");
            }
        }
        for (int i = 0; i < keyframes.length; i++) {
            if (keyframes[i] < 0 || keyframes[i] >= frameSeconds.length || (i > 0 && keyframes[i] < keyframes[i - 1])) {
                throw new IllegalArgumentException("keyframes[" + i + "]: " + keyframes[i] + " (expected: ascending, 0.."
                        + (frameSeconds.length - 1) + ")");
            }
        }
    }

    @Override
    public int frameCount() { return frameSeconds.length; }

    @Override
    public double frameTimeSeconds(int frame) {
        return frameSeconds[frame];
    }

    @Override
    public int decodeLeadFrames(int frame) {
        int j = Arrays.binarySearch(keyframes, frame);
        if (j >= 0) {
            return 0;
        }
        int before = -j - 2;
        return before < 0 ? frame : frame - keyframes[before];
    }
}
