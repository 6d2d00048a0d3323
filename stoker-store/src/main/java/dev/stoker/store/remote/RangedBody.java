package dev.stoker.store.remote;

import dev.stoker.store.remote.internal.ByteRange;
import dev.stoker.store.remote.internal.Retry;
import java.util.Arrays;

/** The bytes a ranged GET asked for, out of what the server sent. */
final class RangedBody {
    private RangedBody() {
    }

    /**
     * {@code partial}: the server answered the range (206 with {@code Content-Range}); otherwise it sent the
     * whole object (a 200: some servers ignore {@code Range}) and the range is cut out of it. A body shorter
     * than asked is a cut connection: transient, so the request is made again rather than the bytes used.
     */
    static byte[] slice(String name, ByteRange range, boolean partial, byte[] body) throws Retry.Transient {
        if (partial) {
            if (body.length != range.length()) {
                throw new Retry.Transient(name + ": " + body.length + " bytes for " + range.header() + " (expected: "
                        + range.length() + ")", null);
            }
            return body;
        }
        if (body.length < range.end()) {
            throw new Retry.Transient(name + ": whole body of " + body.length + " bytes, range " + range.header()
                    + " lies past its end", null);
        }
        return range.offset() == 0 && body.length == range.length() ? body
                : Arrays.copyOfRange(body, Math.toIntExact(range.offset()), Math.toIntExact(range.end()));
    }
}
