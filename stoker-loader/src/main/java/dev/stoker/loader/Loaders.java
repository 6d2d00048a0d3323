package dev.stoker.loader;

import dev.stoker.loader.batch.LoadedBatch;
import dev.stoker.pipeline.InvalidValueException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * The front door: a loader for a location, whatever it holds. A folder or CSV manifest of video files, shards written
 * by {@code stoker ingest} in a local folder, on {@code s3://} or {@code https://}: each kind is opened by the
 * {@link LoaderProvider} the module that has its loader registers (stoker-video, stoker-store), found by
 * {@link ServiceLoader} on the class path; batches on a GPU come from a {@link DeviceLoaderProvider} (stoker-gpu),
 * which wraps the host loader of any kind or decodes video files there. The command line, {@code stoker serve} (and
 * so the Python bridge) open their loaders here.
 *
 * <pre>{@code
 * try (HostBatchLoader loader = Loaders.open("data/train", LoaderOptions.defaults())) {
 *     for (ClipBatch batch : loader) {
 *         try (batch) { train(batch.data(), batch.shape(), batch.labels()); }
 *     }
 * }
 * }</pre>
 *
 * <p>Options travel as they are ({@link LoaderOptions}); how to open (resume from a state, a trace, a remote
 * store's endpoint) is the {@link Opening}. The loader owns the dataset it opened and closes it after itself.
 */
public final class Loaders {

    private Loaders() {
    }

    /** A loader of host batches for {@code location}, from the start ({@link Opening#defaults()}). */
    public static HostBatchLoader open(String location, LoaderOptions options) throws IOException {
        return open(location, options, Opening.defaults());
    }

    /**
     * A loader of host batches ({@code ClipBatch}es, decoded on the CPU) for {@code location}, opened as
     * {@code opening} says, by the provider of its kind: the one that recognises it by a mark of its own (a shard
     * folder's manifest), else the one that takes any local path (video files).
     *
     * @throws InvalidValueException if no provider takes the location (naming what each one opens), or the options
     *         decode on a GPU ({@code decode.device} {@code nvdec} or {@code hybrid}: {@link #onDevice} opens those)
     * @throws IOException if the dataset cannot be read (the message names the path)
     */
    public static HostBatchLoader open(String location, LoaderOptions options, Opening opening) throws IOException {
        Objects.requireNonNull(options, "options");
        DecodeDevice decode = options.decode().device();
        if (decode == DecodeDevice.NVDEC || decode == DecodeDevice.HYBRID) {
            throw new InvalidValueException(LoaderOption.DECODE_DEVICE.path(), decode,
                    "cpu or auto for batches in host memory (Loaders.onDevice decodes on a GPU)");
        }
        return provider(location, opening).open(location, options, opening);
    }

    /**
     * A loader whose batches are on {@code device}: {@code cpu} is {@link #open}'s host loader; a GPU's comes from
     * the {@link DeviceLoaderProvider} that reaches it, which copies the host loader's batches there (video files
     * or shards alike) or, when {@code options.decode()} says {@code nvdec} or {@code hybrid}, decodes the video files
     * there.
     *
     * @throws InvalidValueException if no provider takes the location, or none reaches the device
     * @throws IOException if the dataset cannot be read
     */
    public static ClipLoader<? extends LoadedBatch> onDevice(DeviceSpec device, String location, LoaderOptions options,
                                                             Opening opening) throws IOException {
        Objects.requireNonNull(device, "device");
        if (!device.isCuda()) {
            return open(location, options, opening);
        }
        LoaderProvider host = provider(location, opening);
        for (DeviceLoaderProvider provider : Registered.DEVICES) {
            if (provider.reaches(device)) {
                return provider.open(device, location, host, options, opening);
            }
        }
        throw new InvalidValueException("device", device, "cpu: no module that reaches " + device
                + " is on the class path (stoker-gpu reaches CUDA devices)");
    }

    /** Opens the host loader of {@code location} with the options and opening it is given: what a GPU loader wraps. */
    public static HostLoaderFactory hostFactory(String location) {
        return (options, opening) -> open(location, options, opening);
    }

    /**
     * The provider that opens {@code location}: the one that recognises it, else the one that takes it by default.
     *
     * @throws InvalidValueException if none takes it, naming what each opens
     * @throws IOException if a provider cannot ask the location (a remote store that does not answer)
     */
    public static LoaderProvider provider(String location, Opening opening) throws IOException {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(opening, "opening");
        if (location.isBlank()) {
            // The default provider takes any path, and "" resolves to the working directory: a run on the wrong data.
            throw new InvalidValueException("location", "'" + location + "'",
                    "a dataset: a folder of videos, a manifest, a shard folder or a URL");
        }
        LoaderProvider recognised = null;
        LoaderProvider byDefault = null;
        for (LoaderProvider provider : Registered.HOSTS) {
            switch (provider.claim(location, opening)) {
                case RECOGNISED -> {
                    if (recognised != null) {
                        throw new IllegalStateException(location + ": recognised both as " + recognised.opens() + " and as "
                                + provider.opens());
                    }
                    recognised = provider;
                }
                case DEFAULT -> byDefault = byDefault == null ? provider : byDefault;
                case NONE -> { }
            }
        }
        if (recognised != null) {
            return recognised;
        }
        if (byDefault != null) {
            return byDefault;
        }
        throw new InvalidValueException("location", "'" + location + "'", Registered.HOSTS.isEmpty()
                ? "a dataset a loader on the class path opens (none is: add stoker-video or stoker-store)"
                : Registered.HOSTS.stream().map(LoaderProvider::opens).collect(Collectors.joining("; or ")));
    }

    /** The providers on the class path, found once (the class path does not change while a JVM runs). */
    private static final class Registered {
        static final List<LoaderProvider> HOSTS = load(LoaderProvider.class);
        static final List<DeviceLoaderProvider> DEVICES = load(DeviceLoaderProvider.class);

        private static <T> List<T> load(Class<T> service) {
            List<T> found = new ArrayList<>();
            ServiceLoader.load(service, Loaders.class.getClassLoader()).forEach(found::add);
            return List.copyOf(found);
        }
    }
}
