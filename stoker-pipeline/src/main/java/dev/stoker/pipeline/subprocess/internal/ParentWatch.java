package dev.stoker.pipeline.subprocess.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * The child's tie to its parent: the launch line on standard input, and then standard input itself as the
 * parent's liveness. The child never outlives its parent: end of file on standard input (the parent closed it,
 * or died) or the parent's pid no longer being its parent halts it at once ({@code Runtime.halt}).
 */
final class ParentWatch {
    private static final long PARENT_POLL_MILLIS = 200;

    private ParentWatch() { }

    /** Reads one line byte by byte (nothing beyond it is consumed: the rest of stdin is the parent's liveness). */
    static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1 && b != '\n') {
            line.write(b);
        }
        return b == -1 && line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
    }

    /** Halts this JVM when the parent is gone: stdin at end of file, or no longer the parent's child. */
    static void start(InputStream stdin, long parentPid) {
        Thread.ofPlatform().name("stoker-child-stdin").daemon(true).start(() -> {
            try {
                while (stdin.read() != -1) {
                    // the parent sends nothing more; any byte is ignored
                }
            } catch (IOException ignored) {
                // same as end of file
            }
            Runtime.getRuntime().halt(0);
        });
        Thread.ofPlatform().name("stoker-child-parent-watch").daemon(true).start(() -> {
            while (true) {
                long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
                boolean alive = ProcessHandle.of(parentPid).map(ProcessHandle::isAlive).orElse(false);
                if (parent != parentPid || !alive) {
                    Runtime.getRuntime().halt(0);
                }
                try {
                    Thread.sleep(PARENT_POLL_MILLIS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }
}
