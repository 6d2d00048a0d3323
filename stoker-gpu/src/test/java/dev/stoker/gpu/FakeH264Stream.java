package dev.stoker.gpu;

import java.util.ArrayList;
import java.util.List;

/**
 * What {@link FakeNvdecApi}'s parser reads of an H.264 Annex B stream, as NVIDIA's parser would: the NAL units of a
 * packet, the sequence parameter set's coded size, cropping and reference frames (ITU-T H.264 7.3.2.1.1), and whether
 * a slice's picture is a reference ({@code nal_ref_idc}) or IDR. Enough to model the parser on real files.
 */
final class FakeH264Stream {
    private FakeH264Stream() {
    }

    /** One NAL unit: its type, {@code nal_ref_idc} and payload (header byte excluded, emulation prevention removed). */
    record Nal(int type, int refIdc, byte[] payload) {
        boolean slice() {
            return type == 1 || type == 5;
        }
    }

    /** The sequence: coded size, display window, reference frames. */
    record Sps(int codedWidth, int codedHeight, int left, int top, int right, int bottom, int maxRefFrames,
               int bitDepthMinus8, int chromaFormat) {
    }

    /** The NAL units of an Annex B byte stream. */
    static List<Nal> nals(byte[] stream) {
        List<Nal> out = new ArrayList<>();
        int i = nextStart(stream, 0);
        while (i >= 0 && i < stream.length) {
            int next = nextStart(stream, i);
            int end = next < 0 ? stream.length : next - 3;
            while (end > i && stream[end - 1] == 0) {
                end--;   // the zero of a four-byte start code, or trailing zeros
            }
            if (end > i) {
                int header = stream[i] & 0xff;
                out.add(new Nal(header & 0x1f, (header >> 5) & 3, unescape(stream, i + 1, end)));
            }
            i = next;
        }
        return out;
    }

    /** The index after the next 00 00 01 at or after {@code from}, or -1. */
    private static int nextStart(byte[] s, int from) {
        for (int i = from; i + 2 < s.length; i++) {
            if (s[i] == 0 && s[i + 1] == 0 && s[i + 2] == 1) {
                return i + 3;
            }
        }
        return -1;
    }

    private static byte[] unescape(byte[] s, int from, int to) {
        byte[] out = new byte[to - from];
        int n = 0;
        int zeros = 0;
        for (int i = from; i < to; i++) {
            if (zeros >= 2 && s[i] == 3) {
                zeros = 0;
                continue;
            }
            zeros = s[i] == 0 ? zeros + 1 : 0;
            out[n++] = s[i];
        }
        return java.util.Arrays.copyOf(out, n);
    }

    static Sps sps(byte[] payload) {
        Bits b = new Bits(payload);
        int profile = b.u(8);
        b.u(16);                                   // constraint flags, level
        b.ue();                                    // seq_parameter_set_id
        int chroma = 1;
        int bitDepth = 0;
        if (List.of(100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135).contains(profile)) {
            chroma = b.ue();
            if (chroma == 3) {
                b.u(1);
            }
            bitDepth = b.ue();
            b.ue();
            b.u(1);
            if (b.u(1) == 1) {
                for (int i = 0; i < (chroma == 3 ? 12 : 8); i++) {
                    if (b.u(1) == 1) {
                        int last = 8;
                        int next = 8;
                        for (int j = 0; j < (i < 6 ? 16 : 64); j++) {
                            if (next != 0) {
                                next = (last + b.se() + 256) % 256;
                            }
                            last = next == 0 ? last : next;
                        }
                    }
                }
            }
        }
        b.ue();                                    // log2_max_frame_num_minus4
        int pocType = b.ue();
        if (pocType == 0) {
            b.ue();
        } else if (pocType == 1) {
            b.u(1);
            b.se();
            b.se();
            int n = b.ue();
            for (int i = 0; i < n; i++) {
                b.se();
            }
        }
        int refFrames = b.ue();
        b.u(1);
        int widthMbs = b.ue() + 1;
        int heightUnits = b.ue() + 1;
        int frameMbsOnly = b.u(1);
        if (frameMbsOnly == 0) {
            b.u(1);
        }
        b.u(1);
        int width = widthMbs * 16;
        int height = heightUnits * 16 * (2 - frameMbsOnly);
        int left = 0;
        int right = width;
        int top = 0;
        int bottom = height;
        if (b.u(1) == 1) {
            int unitX = chroma == 0 || chroma == 3 ? 1 : 2;
            int unitY = (chroma == 1 ? 2 : 1) * (2 - frameMbsOnly);
            left = b.ue() * unitX;
            right = width - b.ue() * unitX;
            top = b.ue() * unitY;
            bottom = height - b.ue() * unitY;
        }
        return new Sps(width, height, left, top, right, bottom, refFrames, bitDepth, chroma);
    }

    /** An RBSP bit reader with exp-Golomb codes. */
    private static final class Bits {
        private final byte[] data;
        private int bit;

        Bits(byte[] data) {
            this.data = data;
        }

        int u(int n) {
            int v = 0;
            for (int i = 0; i < n; i++) {
                int at = bit >> 3;
                int value = at < data.length ? (data[at] >> (7 - (bit & 7))) & 1 : 0;
                v = (v << 1) | value;
                bit++;
            }
            return v;
        }

        int ue() {
            int zeros = 0;
            while (u(1) == 0 && zeros < 32) {
                zeros++;
            }
            return (int) ((1L << zeros) - 1 + u(zeros));
        }

        int se() {
            int k = ue();
            return (k & 1) == 1 ? (k + 1) / 2 : -(k / 2);
        }
    }
}
