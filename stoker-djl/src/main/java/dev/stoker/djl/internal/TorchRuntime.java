package dev.stoker.djl.internal;

import ai.djl.Device;
import ai.djl.engine.Engine;
import dev.stoker.pipeline.InvalidValueException;
import java.util.Locale;

/**
 * Settings libtorch reads once, when DJL's PyTorch engine loads: they must be set before the first
 * {@link Engine#getInstance()}, so every entry point of this module calls {@link #engine()}.
 *
 * <p>The loader decodes on the same cores as the model trains. libtorch's inter-op pool would add a second
 * set of busy threads for nothing (one graph runs at a time), so it gets one thread; the intra-op pool gets
 * one per core. OpenMP's threads spin between parallel regions unless {@code OMP_WAIT_POLICY=PASSIVE}, an
 * environment variable (a JVM cannot set it for itself): the launcher and the tests set it, and
 * {@link #ompWaitPolicy()} says whether it is in effect. Each setting yields to a system property already
 * given ({@code -Dai.djl.pytorch.num_threads=4}).
 */
public final class TorchRuntime {
    private TorchRuntime() {
    }

    /** The PyTorch engine, configured for this machine, loaded offline from the jar on the class path. */
    public static synchronized Engine engine() {
        setIfAbsent("ai.djl.offline", "true");
        // DJL logs through SLF4J; without a binding SLF4J's own three-line warning is all anyone would see.
        setIfAbsent("slf4j.internal.verbosity", "ERROR");
        setIfAbsent("ai.djl.default_engine", "PyTorch");
        setIfAbsent("ai.djl.pytorch.num_interop_threads", "1");
        setIfAbsent("ai.djl.pytorch.num_threads", Integer.toString(Runtime.getRuntime().availableProcessors()));
        // DJL finds its engines (ServiceLoader) and libtorch's jar through the context class loader; when this
        // module lives in a class loader of its own (stoker train), that is not the one that sees them.
        Thread thread = Thread.currentThread();
        ClassLoader context = thread.getContextClassLoader();
        thread.setContextClassLoader(TorchRuntime.class.getClassLoader());
        try {
            return Engine.getEngine("PyTorch");
        } finally {
            thread.setContextClassLoader(context);
        }
    }

    /** {@code cpu} or {@code cuda:N} (also DJL's {@code gpu(N)} spelling) as a DJL device. */
    public static Device device(String spec) {
        String s = spec.trim().toLowerCase(Locale.ROOT);
        if (s.equals("cpu")) {
            return Device.cpu();
        }
        if (s.startsWith("cuda:") || s.startsWith("gpu:")) {
            try {
                int id = Integer.parseInt(s.substring(s.indexOf(':') + 1));
                if (id >= 0) {
                    return Device.gpu(id);
                }
            } catch (NumberFormatException e) {
                // the message below
            }
        }
        throw new InvalidValueException("device", spec, "cpu or cuda:N");
    }

    /** Checks that the engine can reach {@code device}: a GPU needs a CUDA build of libtorch and the device present. */
    public static Device requireAvailable(Device device) {
        if (device.isGpu()) {
            int gpus = engine().getGpuCount();
            if (device.getDeviceId() >= gpus) {
                throw new InvalidValueException("device", "cuda:" + device.getDeviceId(), "cpu, or a GPU libtorch sees: it sees "
                        + gpus + " (this build bundles the CPU libtorch; a GPU needs ai.djl.pytorch:pytorch-native-cu*"
                        + " on the class path and an NVIDIA driver)");
            }
        }
        return device;
    }

    /** The value of {@code OMP_WAIT_POLICY} in this process ({@code "unset"} when absent). */
    public static String ompWaitPolicy() {
        String v = System.getenv("OMP_WAIT_POLICY");
        return v == null ? "unset" : v;
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
