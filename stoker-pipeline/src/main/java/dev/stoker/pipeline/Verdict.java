package dev.stoker.pipeline;

/**
 * The bottleneck, named in one line.
 *
 * @param bottleneck the stage that limits throughput, {@code "consumer"} or {@code "source"}
 * @param state      {@code saturated}, {@code starved}, {@code consumer-bound} or {@code warming-up}
 * @param line       human sentence, e.g. {@code bottleneck: decode (saturated: busy 97% of 3 workers, input queue full 82%)}
 */
public record Verdict(String bottleneck, String state, String line) { }
