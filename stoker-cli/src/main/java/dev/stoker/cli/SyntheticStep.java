package dev.stoker.cli;

import dev.stoker.bench.internal.CpuBurn;
import dev.stoker.tune.TensorBatch;
import dev.stoker.tune.TrainingStep;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A stand-in training step for {@code stoker headspace --step-ms}: reads one byte per 4 KiB page of the
 * batch, then burns a fixed amount of CPU calibrated to take about {@code millis} on an idle core
 * ({@link CpuBurn}). The work is fixed, not the time: on a machine whose cores are busy decoding, the
 * step takes longer, as a CPU-bound step would.
 */
final class SyntheticStep implements TrainingStep<TensorBatch> {
    private static final long PAGE_BYTES = 4096;

    private final CpuBurn burn;
    private final long micros;
    private volatile long sink;

    SyntheticStep(double millis) {
        this.burn = CpuBurn.calibrated();
        this.micros = Math.max(1, Math.round(millis * 1000));
    }

    @Override
    public void accept(TensorBatch batch) {
        MemorySegment data = batch.data();
        long checksum = 0;
        for (long offset = 0; offset < data.byteSize(); offset += PAGE_BYTES) {
            checksum += data.get(ValueLayout.JAVA_BYTE, offset);
        }
        sink = burn.burn(micros, checksum);
    }
}
