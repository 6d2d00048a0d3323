package dev.stoker.pipeline.subprocess.internal;

import dev.stoker.pipeline.internal.Resources;
import dev.stoker.pipeline.subprocess.ItemCodec;

/**
 * What one record of the results ring carries: an output larger than that could never be sent (a record never
 * wraps), so it fails as its input's failure instead of leaving the writer stuck.
 */
record ResultsLimit(ItemCodec<Object> codec, long maxPayloadBytes) {

    /** {@code out} when it fits; otherwise releases it and throws. {@code null} passes. */
    Object requireFits(Object out, Lineage in) {
        if (out == null) {
            return null;
        }
        long bytes = in.prefixBytes() + codec.encodedBytes(out);
        if (bytes > maxPayloadBytes) {
            Resources.release(out);
            throw new OutputTooLargeException("output of '" + in + "' encodes to " + bytes
                    + " bytes, more than the ring carries (" + maxPayloadBytes
                    + " bytes; raise SubprocessOptions.ringBytes)");
        }
        return out;
    }
}
