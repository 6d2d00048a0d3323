package dev.stoker.loader;

/**
 * A span of each video, in seconds from its first frame ({@code --clip-window FROM:TO}): a clip of the
 * frames shown in {@code [fromSeconds, toSeconds)}.
 */
public record ClipWindow(double fromSeconds, double toSeconds) {
    public ClipWindow {
        if (!(fromSeconds >= 0) || !(toSeconds > fromSeconds) || !Double.isFinite(toSeconds)) {
            throw new IllegalArgumentException("clip window: " + fromSeconds + ":" + toSeconds
                    + " (expected: FROM:TO seconds with 0 <= FROM < TO)");
        }
    }

    /** {@code FROM:TO} in seconds, e.g. {@code 0:0.5}. */
    public static ClipWindow parse(String text) {
        String[] parts = text.strip().split(":");
        try {
            if (parts.length == 2) {
                return new ClipWindow(Double.parseDouble(parts[0]), Double.parseDouble(parts[1]));
            }
        } catch (NumberFormatException e) {
            // the message below
        }
        throw new IllegalArgumentException("clip window: " + text + " (expected: FROM:TO seconds, e.g. 0:0.5)");
    }

    public double durationSeconds() {
        return toSeconds - fromSeconds;
    }

    @Override
    public String toString() {
        return seconds(fromSeconds) + ":" + seconds(toSeconds);
    }

    private static String seconds(double s) {
        return s == Math.rint(s) && Math.abs(s) < 1e15 ? Long.toString((long) s) : Double.toString(s);
    }
}
