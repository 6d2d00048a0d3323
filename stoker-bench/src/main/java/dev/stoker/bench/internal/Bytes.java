package dev.stoker.bench.internal;

import java.util.Locale;

/** Byte counts as people read them, in the tables and summaries Stoker prints. */
public final class Bytes {
    private static final String[] UNITS = {"KiB", "MiB", "GiB", "TiB"};

    private Bytes() {
    }

    /** 1536 → "1.5 KiB"; under 1 KiB in bytes ("512 B"). */
    public static String human(long n) {
        if (n < 1024) {
            return n + " B";
        }
        double v = n;
        int u = -1;
        while (v >= 1024 && u < UNITS.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, UNITS[u]);
    }
}
