package dev.stoker.tune;

import dev.stoker.tune.internal.TrialMetrics;
import dev.stoker.tune.internal.TrialRunner;
import dev.stoker.tune.internal.TrialSpec;
import dev.stoker.tune.internal.TrialStatus;
import java.util.concurrent.TimeoutException;

/**
 * How a trial's run ended, before the search decides what it means.
 *
 * @param status   how it ended
 * @param message  why it failed (null when ok)
 * @param metrics  what it measured (null unless ok)
 * @param started  seconds since the search started
 * @param duration seconds it took
 */
record TrialRun(TrialStatus status, String message, TrialMetrics metrics, double started, double duration) {

    double samplesPerSecond() {
        return metrics != null ? metrics.samplesPerSecond() : 0;
    }

    /**
     * Runs one trial. One that fails (not one that hangs) runs once more: on a shared machine a run can die for
     * reasons of its own. One that delivered nothing failed.
     */
    static TrialRun execute(TrialRunner runner, TrialSpec spec, double started) {
        long t0 = System.nanoTime();
        TrialStatus status = TrialStatus.OK;
        String message = null;
        TrialMetrics metrics = null;
        try {
            for (int attempt = 0; attempt < 2; attempt++) {
                try {
                    metrics = runner.run(spec);
                    if (metrics == null || !(metrics.samplesPerSecond() > 0)) {
                        status = TrialStatus.FAILED;
                        message = "no samples delivered";
                        metrics = null;
                    } else {
                        status = TrialStatus.OK;
                        message = null;
                        break;
                    }
                } catch (TimeoutException | InterruptedException e) {
                    throw e;
                } catch (Exception e) {
                    if (attempt == 1) {
                        throw e;
                    }
                }
            }
        } catch (TimeoutException e) {
            status = TrialStatus.TIMEOUT;
            message = e.getMessage() != null ? e.getMessage() : "ran past " + spec.timeoutMillis() / 1000 + " s";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("tuning interrupted", e);
        } catch (Exception e) {
            status = TrialStatus.FAILED;
            message = e.getMessage() != null ? e.getMessage() : e.toString();
        }
        return new TrialRun(status, message, metrics, started, (System.nanoTime() - t0) / 1e9);
    }
}
