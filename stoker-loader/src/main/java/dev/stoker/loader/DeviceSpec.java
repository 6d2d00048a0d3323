package dev.stoker.loader;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where batches go: {@code cpu} (the default: batches stay in host memory) or {@code cuda:N}, the N-th
 * CUDA device in the driver's order ({@code cuda} alone means {@code cuda:0}).
 */
public record DeviceSpec(Kind kind, int index) {
    public enum Kind { CPU, CUDA }

    public static final DeviceSpec CPU = new DeviceSpec(Kind.CPU, 0);

    private static final Pattern CUDA = Pattern.compile("cuda(?::(\\d{1,4}))?");

    public DeviceSpec {
        if (kind == null) {
            throw new IllegalArgumentException("kind: null (expected: CPU or CUDA)");
        }
        if (index < 0 || (kind == Kind.CPU && index != 0)) {
            throw new IllegalArgumentException("index: " + index + " (expected: 0" + (kind == Kind.CUDA ? "+" : " for cpu") + ")");
        }
    }

    public static DeviceSpec cuda(int index) {
        return new DeviceSpec(Kind.CUDA, index);
    }

    /** Parses {@code cpu}, {@code cuda} or {@code cuda:N}. */
    public static DeviceSpec parse(String text) {
        String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        if (t.equals("cpu")) {
            return CPU;
        }
        Matcher m = CUDA.matcher(t);
        if (m.matches()) {
            return cuda(m.group(1) == null ? 0 : Integer.parseInt(m.group(1)));
        }
        throw new IllegalArgumentException("device: \"" + text + "\" (expected: cpu, cuda or cuda:N)");
    }

    public boolean isCuda() {
        return kind == Kind.CUDA;
    }

    @Override
    public String toString() {
        return kind == Kind.CPU ? "cpu" : "cuda:" + index;
    }
}
