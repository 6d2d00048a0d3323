package dev.stoker.pipeline;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.stoker.pipeline.internal.Json;
import dev.stoker.pipeline.internal.StageKind;
import java.lang.reflect.InvocationTargetException;
import java.util.List;
import java.util.function.Function;

/**
 * A pipeline's description apart from its code: the stages in order, each with its kind and, where it
 * was given as a {@link StageFactory}, the factory class and config that rebuild its function; plus the
 * effective {@link PipelineConfig} knobs. Printable and JSON in and out ({@link PipelineBuilder#spec()});
 * a child JVM rebuilds the stages it runs from it.
 *
 * <pre>{@code
 * {"stages": [{"name": "read", "kind": "map", "factory": "com.acme.ReadFactory", "factoryConfig": "{}"},
 *             {"name": "batch", "kind": "batch", "factoryConfig": "{\"size\":8,\"dropLast\":false}"}],
 *  "config": {"sinkCapacity": 2, "stages": {"read": {"concurrency": 8, ...}}}}
 * }</pre>
 *
 * @param stages every stage, in pipeline order
 * @param config the knobs, every field filled in
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PipelineSpec(List<Stage> stages, PipelineConfig config) {

    public PipelineSpec {
        stages = List.copyOf(stages);
    }

    /**
     * One stage.
     *
     * @param name          stage name (unique in the pipeline)
     * @param kind          what the stage does (in JSON {@code map}, {@code flatMap}, {@code filter} or {@code batch})
     * @param factory       the {@link StageFactory} class name; {@code null} for a stage given as code (a lambda),
     *                      which can run only in the process that built it, and for {@code batch}
     * @param factoryConfig the factory's config string; for {@code batch}, {@code {"size":N,"dropLast":B}}
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Stage(String name, StageKind kind, String factory, String factoryConfig) {

        /** Whether another process can rebuild this stage from its description alone. */
        public boolean reconstructible() {
            return factory != null || kind.builtIn();
        }

        /**
         * Makes this stage's function: loads the factory class (through the context class loader), calls
         * its no-arg constructor and {@link StageFactory#create}.
         */
        @SuppressWarnings("unchecked")
        public Function<Object, Object> createFunction() {
            if (factory == null) {
                throw new IllegalStateException("stage '" + name + "' (" + kind
                        + ") has no factory: it was given as code and cannot be rebuilt from its description"
                        + " (expected: a StageFactory class, e.g. builder.map(\"" + name + "\", MyFactory.class, config))");
            }
            try {
                ClassLoader loader = Thread.currentThread().getContextClassLoader();
                Class<?> type = Class.forName(factory, true, loader != null ? loader : PipelineSpec.class.getClassLoader());
                if (!StageFactory.class.isAssignableFrom(type)) {
                    throw new IllegalArgumentException("stage '" + name + "': factory " + factory
                            + " does not implement " + StageFactory.class.getName());
                }
                StageFactory<Object, Object> f = (StageFactory<Object, Object>) type.getConstructor().newInstance();
                Function<Object, Object> fn = f.create(factoryConfig == null ? "" : factoryConfig);
                if (fn == null) {
                    throw new IllegalStateException("stage '" + name + "': factory " + factory + " returned no function");
                }
                return fn;
            } catch (ClassNotFoundException e) {
                throw new IllegalArgumentException("stage '" + name + "': factory class " + factory
                        + " not found on the class path", e);
            } catch (NoSuchMethodException | IllegalAccessException | InstantiationException e) {
                throw new IllegalArgumentException("stage '" + name + "': factory " + factory
                        + " needs a public no-arg constructor (" + e + ")", e);
            } catch (InvocationTargetException e) {
                throw new IllegalStateException("stage '" + name + "': factory " + factory + " constructor failed: "
                        + e.getCause(), e.getCause());
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("stage '" + name + "': factory " + factory + " failed on config '"
                        + factoryConfig + "': " + e, e);
            }
        }
    }

    /** The named stage. */
    public Stage stage(String name) {
        return Json.stageNamed(stages, Stage::name, name);
    }

    public String toJson() {
        return Json.write(this);
    }

    public static PipelineSpec fromJson(String json) {
        return Json.read(json, PipelineSpec.class, "pipeline spec");
    }

    @Override
    public String toString() { return toJson(); }
}
