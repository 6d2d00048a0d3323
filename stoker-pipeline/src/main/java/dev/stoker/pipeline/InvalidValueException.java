package dev.stoker.pipeline;

import java.util.Objects;

/**
 * A value its parameter does not accept, with the parameter's name, the value and what the parameter expects as
 * fields; the message is Netty's form of them, {@code "frames: 0 (expected: 1+)"}. A caller that knows the
 * parameter by another name (a command's {@code --frames}) reports it under that name with {@link #as}, instead
 * of rewriting the message text.
 */
public final class InvalidValueException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String name;
    private final String value;
    private final String expected;

    /**
     * @param name     the parameter, as its owner names it ({@code "warmupSteps"})
     * @param value    the value given ({@code String.valueOf} of it)
     * @param expected what the parameter accepts ({@code "1+"}, {@code "one of [fetch, demux]"})
     */
    public InvalidValueException(String name, Object value, String expected) {
        super(name + ": " + value + " (expected: " + expected + ")");
        this.name = Objects.requireNonNull(name, "name");
        this.value = String.valueOf(value);
        this.expected = Objects.requireNonNull(expected, "expected");
    }

    /** The parameter's name, as the code that refused the value names it (the value and what it expects are in the message). */
    public String name() { return name; }

    /** The same refusal under the name the caller's user knows the parameter by (an option: {@code "--warmup"}). */
    public InvalidValueException as(String otherName) {
        InvalidValueException renamed = new InvalidValueException(otherName, value, expected);
        renamed.initCause(this);
        return renamed;
    }
}
