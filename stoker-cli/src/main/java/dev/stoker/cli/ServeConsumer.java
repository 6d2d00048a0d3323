package dev.stoker.cli;

import java.util.Optional;

/**
 * The process {@code stoker serve} feeds, whose exit ends it before the session reads the control pipe. The bridge
 * names itself in {@value #ENV}: a consumer that died before this JVM asked for its parent has left it to init (or a
 * subreaper), whose exit never comes, so the parent alone would keep a dead consumer's JVM copying or listing.
 */
final class ServeConsumer {
    static final String ENV = "STOKER_CONSUMER_PID";

    private ServeConsumer() {
    }

    /**
     * The consumer: the process {@code named} (the variable's value, null where unset), else this one's parent.
     * Empty when the named process is gone, or when its pid now belongs to a process that started after this one (the
     * consumer started this JVM, so it is older). Where a start time is unknown, a live process of that pid is taken
     * for the consumer: a JVM left running is the lesser harm than one halted under a live consumer.
     *
     * @throws IllegalArgumentException if {@code named} is not a pid
     */
    static Optional<ProcessHandle> of(String named) {
        if (named == null) {
            return ProcessHandle.current().parent();
        }
        long pid;
        try {
            pid = Long.parseLong(named.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(ENV + ": \"" + named + "\" (expected: a process id)");
        }
        if (pid <= 0) {
            throw new IllegalArgumentException(ENV + ": " + pid + " (expected: a process id, 1+)");
        }
        var started = ProcessHandle.current().info().startInstant();
        return ProcessHandle.of(pid).filter(p -> started.isEmpty() || p.info().startInstant()
                .map(s -> !s.isAfter(started.get())).orElse(true));
    }
}
