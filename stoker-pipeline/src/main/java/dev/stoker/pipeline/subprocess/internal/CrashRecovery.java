package dev.stoker.pipeline.subprocess.internal;

import dev.stoker.pipeline.PipelineFailedException;
import dev.stoker.pipeline.internal.Resources;
import dev.stoker.pipeline.subprocess.ChildCrashedException;
import java.util.List;

/**
 * What the supervisor does when the child has died and everything it published has been handled: blame the
 * crash (an item in flight alone at its second crash is quarantined, recorded as a failure
 * {@value ChildCrashedException#REASON}), restart the child within the crash budget, and send every unacked
 * entry again, items one at a time (probation), so that the next crash names its culprit.
 */
final class CrashRecovery {
    private static final System.Logger LOG = System.getLogger("dev.stoker.pipeline.subprocess");

    private final ChildLauncher launcher;
    private final InFlightLedger ledger;
    private final ChildReports reports;
    private final CrashLoopBudget crashes;

    CrashRecovery(ChildLauncher launcher, InFlightLedger ledger, ChildReports reports, int crashBudget) {
        this.launcher = launcher;
        this.ledger = ledger;
        this.reports = reports;
        this.crashes = new CrashLoopBudget(crashBudget);
    }

    /** Restarts the dead child; {@code null} when it runs again, else the failure that ends the run. */
    PipelineFailedException recover() {
        String how = launcher.howItEnded();
        int restarts = crashes.restart(ledger.doneCount());
        List<SentEntry> suspects = ledger.suspects();
        List<String> named = suspects.stream().map(e -> "'" + Resources.describe(e.value) + "'").toList();
        if (suspects.size() == 1) {
            SentEntry culprit = suspects.getFirst();
            if (++culprit.crashes >= 2) {
                quarantine(culprit, how);
            }
        } else if (!launcher.killed()) {
            // A SIGKILL comes from outside: it blames none of several items in flight, or one that happened to be
            // in flight at two such kills would be skipped and lost. Alone in flight (probation) it still counts,
            // so an item that makes the child run out of memory is still skipped.
            suspects.forEach(e -> e.crashes++);
        }
        if (crashes.exhausted()) {
            return reports.runFailure("the child process died " + restarts + " times in a row without finishing an item"
                    + " (crash budget: " + crashes.budget() + " restarts); last: " + how + ", with items in flight "
                    + named, null);
        }
        LOG.log(System.Logger.Level.WARNING, "child process " + launcher.pid() + " died (" + how + ") with "
                + suspects.size() + " items in flight " + abbreviate(named) + "; restarting it (restart " + restarts + " of "
                + crashes.budget() + ") and sending them again, one at a time");
        ledger.resendAll();
        try {
            launcher.restart();
            return null;
        } catch (RuntimeException e) {
            return reports.runFailure("the child process died (" + how + ") and could not be restarted: " + e.getMessage(), e);
        }
    }

    private void quarantine(SentEntry culprit, String how) {
        ledger.quarantine(culprit);
        String item = Resources.describe(culprit.value);
        ChildCrashedException cause = new ChildCrashedException("item '" + item + "' killed the child process twice, the"
                + " second time alone in flight (" + how + "); skipped");
        LOG.log(System.Logger.Level.WARNING, cause.getMessage());
        reports.gaveUp(culprit.id, item, ChildCrashedException.REASON, cause);
    }

    private static String abbreviate(List<String> names) {
        return names.size() <= 5 ? names.toString() : names.subList(0, 5) + " and " + (names.size() - 5) + " more";
    }
}
