package dev.stoker.pipeline;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;

/**
 * The bottleneck, named in one line.
 *
 * @param bottleneck the stage that limits throughput, {@code "consumer"}, {@code "source"} or {@code "cpu"}
 * @param state      what kind of limit it is
 * @param line       human sentence, e.g. {@code bottleneck: decode (saturated: busy 97% of 3 workers, input queue full 82%)}
 */
public record Verdict(String bottleneck, State state, String line) {

    /** What kind of limit the verdict names; {@link #code()} is its name in JSON and the dashboard's class. */
    public enum State {
        /** Too few batches delivered to tell. */
        WARMING_UP("warming-up"),
        /** The consumer sets the pace ({@link Bottleneck#consumerBound}). */
        CONSUMER_BOUND("consumer-bound"),
        /** A stage is busy most of its worker-time ({@link Bottleneck#saturated}). */
        SATURATED("saturated"),
        /** Every stage idles between hand-offs: tasks are too short for the threads between them. */
        OVERHEAD("overhead"),
        /** No stage is saturated, but the machine's CPUs are ({@link Bottleneck#cpuBound}): more workers cannot help. */
        CPU_BOUND("cpu-bound"),
        /** The first stage waits on an empty input: the source is slow. */
        STARVED("starved"),
        /** None of the above: the busiest stage, as the likeliest. */
        BUSIEST("busiest");

        private final String code;

        State(String code) {
            this.code = code;
        }

        @JsonValue
        public String code() { return code; }

        @JsonCreator
        public static State of(String code) {
            return Arrays.stream(values()).filter(s -> s.code.equals(code)).findFirst().orElseThrow(() ->
                    new IllegalArgumentException("verdict state: " + code + " (expected: one of "
                            + Arrays.stream(values()).map(State::code).toList() + ")"));
        }
    }
}
