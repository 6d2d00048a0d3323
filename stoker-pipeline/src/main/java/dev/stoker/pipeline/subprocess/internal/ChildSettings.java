package dev.stoker.pipeline.subprocess.internal;

import dev.stoker.pipeline.subprocess.ItemCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;

/**
 * What the parent's side needs of {@code SubprocessOptions}, resolved: the child's command line and environment,
 * the codecs, the rings' size, the timings and the crash budget.
 *
 * @param fatalErrorReport where a child that died of a JVM fatal error wrote its hs_err report, by pid
 */
public record ChildSettings(List<String> command, Map<String, String> environment, ItemCodec<?> inputCodec,
                            ItemCodec<?> outputCodec, long ringBytes, Duration startTimeout, Duration closeGrace,
                            Duration reportInterval, int crashBudget, LongConsumer onChildStart,
                            LongFunction<Optional<Path>> fatalErrorReport) {
}
