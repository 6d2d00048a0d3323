package dev.stoker.loader.batch;

/** Dimension order of a batch tensor of uint8 pixels. */
public enum BatchLayout {
    /** [N, T, H, W, C]: frames as decoded and converted (packed RGB); each clip is one contiguous copy. */
    NTHWC,
    /** [N, C, T, H, W]: channel planes first, what 3D CNNs (PyTorch Conv3d) take; filling needs a transpose. */
    NCTHW;

    /** The tensor shape of {@code clips} clips of {@code frames}×{@code height}×{@code width}×{@code channels}. */
    public long[] shape(int clips, int frames, int height, int width, int channels) {
        return switch (this) {
            case NTHWC -> new long[] {clips, frames, height, width, channels};
            case NCTHW -> new long[] {clips, channels, frames, height, width};
        };
    }
}
