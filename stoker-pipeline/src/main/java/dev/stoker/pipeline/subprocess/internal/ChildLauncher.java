package dev.stoker.pipeline.subprocess.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Launches the child JVM and watches it: starts it with its launch line on standard input, waits for its
 * hello (its stages built), says how it ended, restarts it on empty rings, and stops it (closing its standard input tells it to exit; then
 * destroy, then destroy forcibly).
 */
final class ChildLauncher {
    private final ChildSettings settings;
    private final String launchLine;
    private final ChildRings rings;
    private volatile Process process;
    private OutputStream childStdin;

    ChildLauncher(ChildSettings settings, String launchLine, ChildRings rings) {
        this.settings = settings;
        this.launchLine = launchLine;
        this.rings = rings;
    }

    /** After the child died: empties both rings (what the dead child left is handled) and starts a new one. */
    void restart() {
        closeStdin();
        rings.reset();
        start();
    }

    /** Starts a child and waits until it has built its stages (its HELLO); throws when it cannot. */
    void start() {
        ProcessBuilder builder = new ProcessBuilder(settings.command())
                .redirectOutput(ProcessBuilder.Redirect.INHERIT)
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().putAll(settings.environment());
        Process p;
        try {
            p = builder.start();
            process = p;
            childStdin = p.getOutputStream();
            childStdin.write(launchLine.getBytes(StandardCharsets.UTF_8));
            childStdin.flush();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the child JVM " + settings.command() + ": " + e.getMessage(), e);
        }
        settings.onChildStart().accept(p.pid());
        long deadline = System.nanoTime() + settings.startTimeout().toNanos();
        SharedRing results = rings.results();
        SharedRing.Record record = new SharedRing.Record();
        Backoff backoff = new Backoff(TimeUnit.MILLISECONDS.toNanos(5));
        while (true) {
            if (results.poll(record)) {
                int type = record.type;
                String payload = type == Wire.FATAL ? Wire.utf8(record.payload) : null;
                results.release();
                if (type == Wire.HELLO) {
                    return;
                }
                if (type == Wire.FATAL) {
                    stop();
                    throw new IllegalStateException("the child JVM could not build its stages: " + payload);
                }
                continue;
            }
            if (!p.isAlive()) {
                throw new IllegalStateException("the child JVM exited (" + describeExit(p.exitValue())
                        + ") before it was ready; its output is above. Command: " + settings.command());
            }
            if (System.nanoTime() > deadline) {
                stop();
                throw new IllegalStateException("the child JVM was not ready within " + settings.startTimeout()
                        + " (expected: SubprocessOptions.startTimeout longer, or a lighter stage set-up)");
            }
            try {
                backoff.idle();
            } catch (InterruptedException e) {
                stop();
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting the child JVM");
            }
        }
    }

    boolean isAlive() { return process.isAlive(); }

    /** Pid of the running child (or of the last one), -1 before the first start. */
    long pid() {
        Process p = process;
        return p == null ? -1 : p.pid();
    }

    /** Whether the child was killed by SIGKILL: from outside (a user, the OOM killer), not a crash of its own. */
    boolean killed() {
        return process != null && !process.isAlive() && process.exitValue() == 128 + 9;
    }

    /** How the (dead) child ended: its exit code, the signal, and where a JVM fatal error report is. */
    String howItEnded() {
        Process p = process;
        return describeExit(p.exitValue()) + settings.fatalErrorReport().apply(p.pid())
                .map(f -> ", a JVM fatal error such as a native crash: see " + f.toAbsolutePath()).orElse("");
    }

    static String describeExit(int code) {
        if (code > 128 && code < 128 + 65) {
            int signal = code - 128;
            String name = switch (signal) {
                case 6 -> "SIGABRT: a JVM fatal error such as a native crash (see its hs_err file)";
                case 9 -> "SIGKILL: killed, e.g. by the out-of-memory killer";
                case 11 -> "SIGSEGV";
                case 15 -> "SIGTERM";
                default -> "signal " + signal;
            };
            return "exit code " + code + ", " + name;
        }
        return "exit code " + code;
    }

    /** Tells the child to exit (it halts at end of file on its standard input). */
    void closeStdin() {
        try {
            if (childStdin != null) {
                childStdin.close();
            }
        } catch (IOException ignored) {
            // the child is gone
        }
    }

    /** Closing its standard input tells the child to exit; then destroy, then destroy forcibly. */
    void stop() {
        Process p = process;
        if (p == null) {
            return;
        }
        closeStdin();
        long graceMillis = settings.closeGrace().toMillis();
        try {
            if (!p.waitFor(graceMillis, TimeUnit.MILLISECONDS)) {
                p.destroy();
                if (!p.waitFor(graceMillis, TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                    p.waitFor(graceMillis, TimeUnit.MILLISECONDS);
                }
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
