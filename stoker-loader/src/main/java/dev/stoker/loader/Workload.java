package dev.stoker.loader;

import dev.stoker.loader.clip.PastEndPolicy;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.ClipStartBudget;
import java.util.Arrays;
import java.util.Locale;

/**
 * A whole clip recipe by name ({@code --workload NAME}, Python's {@code workload=}), so that a figure is measured
 * on the same work as the one it is compared with. Applied over the other options; the batch and the epoch order
 * stay the caller's.
 */
public enum Workload {
    /**
     * SPDL's video classification example ({@code examples/video_classification/utils/pipeline.py}): each video
     * demuxed over {@code [0, 0.5 s)} only ({@code timestamp=(0.0, subclip_duration)}), its frames there decoded,
     * 16 of them taken by {@code torch.linspace(0, n - 1, 16).long()} (or, with fewer than 16, all of them and the
     * last repeated), scaled to 112x112 without keeping the aspect ({@code scale_width}, {@code scale_height}).
     */
    SPDL_EXAMPLE("spdl-example");

    private final String cliName;

    Workload(String cliName) {
        this.cliName = cliName;
    }

    /** The name {@code --workload} takes. */
    public String cliName() { return cliName; }

    /** The workload {@code name} names. */
    public static Workload of(String name) {
        for (Workload w : values()) {
            if (w.cliName.equals(name.strip().toLowerCase(Locale.ROOT))) {
                return w;
            }
        }
        throw new IllegalArgumentException("workload: " + name + " (expected: one of "
                + Arrays.stream(values()).map(Workload::cliName).toList() + ")");
    }

    /** {@code options} doing this workload's clips. */
    public LoaderOptions applyTo(LoaderOptions options) {
        return switch (this) {
            case SPDL_EXAMPLE -> {
                LoaderOptions.Clip c = options.clip();
                yield options.toBuilder()
                        .clip(new LoaderOptions.Clip(16, 1, 0, PastEndPolicy.REPEAT_LAST, c.starts(), 1,
                                c.windowStepSeconds(), ClipStartBudget.NONE, new ClipWindow(0, 0.5), c.frameFolderFps()))
                        .size(112, 112, Resize.Mode.STRETCH, 0)
                        .build();
            }
        };
    }

    @Override
    public String toString() { return cliName; }
}
