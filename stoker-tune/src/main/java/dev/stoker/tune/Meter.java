package dev.stoker.tune;

import java.util.function.BooleanSupplier;

/** Measures the tuned pipeline as it stands: {@link WindowMeter} on a running one, a model of one in tests. */
interface Meter {
    /** The next measurement, or null when {@code closed} turned true meanwhile. */
    MeasuredWindow measure(BooleanSupplier closed);
}
