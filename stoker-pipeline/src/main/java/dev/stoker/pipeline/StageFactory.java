package dev.stoker.pipeline;

import java.util.function.Function;

/**
 * Makes a stage's function from a config string, so that the stage can be described by name and
 * rebuilt elsewhere: in a child JVM ({@link PipelineBuilder#isolate}), from a saved {@link PipelineSpec}.
 * An implementation is a public class with a public no-arg constructor; {@link #create} is called once
 * per pipeline, in the process the stage runs in, and the function it returns must be safe to call
 * from the stage's workers at once.
 *
 * <pre>{@code
 * public final class ReadFactory implements StageFactory<Path, FileBytes> {
 *     public Function<Path, FileBytes> create(String config) { return ReadStage.fromJson(config)::read; }
 * }
 * builder.map("read", ReadFactory.class, "{\"retries\": 2}", s -> s.concurrency(8));
 * }</pre>
 *
 * For a flat-map stage {@code O} is an {@code Iterable} of the outputs; for a filter it is {@code Boolean}.
 *
 * @param <I> the stage's input type
 * @param <O> what the function returns for one input
 */
public interface StageFactory<I, O> {

    /** The stage function for {@code config} (the string given to the builder, verbatim; may be empty). */
    Function<I, O> create(String config) throws Exception;
}
