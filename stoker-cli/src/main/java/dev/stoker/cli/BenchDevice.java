package dev.stoker.cli;

import dev.stoker.gpu.Cuda;
import dev.stoker.gpu.DeviceSpec;
import dev.stoker.gpu.GpuDecodeOptions;
import dev.stoker.gpu.GpuLoader;
import dev.stoker.gpu.GpuUnavailableException;
import dev.stoker.gpu.NvdecCodecs;
import dev.stoker.gpu.NvdecLoader;
import dev.stoker.gpu.TransferOptions;
import dev.stoker.pipeline.TraceRecorder;
import dev.stoker.video.batch.LoadedBatch;
import dev.stoker.video.dataset.Dataset;
import dev.stoker.video.loader.ClipLoader;
import dev.stoker.video.loader.LoaderOptions;
import dev.stoker.video.loader.VideoLoader;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code stoker bench --device} and {@code --decode}: where batches end up and where clips are decoded.
 * {@code --device cpu} (the default) leaves batches in host memory; {@code cuda:N} has collate write them
 * into pinned memory and copies each to device N while the next one is loaded. {@code --decode nvdec}
 * decodes on the GPU's NVDEC engines instead ({@link NvdecLoader}): the batches are assembled on the device
 * and nothing of the pixels crosses PCIe. Both are experimental: the GPU path has not run on hardware yet.
 */
record BenchDevice(DeviceSpec spec, DecodeOptions decode, PrintWriter out) {

    /** {@code --decode}, {@code --nvdec-sessions}, {@code --no-cpu-fallback}: a mixin of {@code stoker bench}. */
    static final class DecodeOptions {
        @Option(names = "--decode", defaultValue = "cpu", paramLabel = "cpu|nvdec") String decode;
        @Option(names = "--nvdec-sessions", paramLabel = "N") Integer sessions;
        @Option(names = "--no-cpu-fallback") boolean noCpuFallback;

        boolean nvdec() {
            return "nvdec".equals(decode);
        }

        /**
         * The device the run needs, once the options are checked: {@code --decode nvdec} without
         * {@code --device} means {@code cuda:0}. Combinations that cannot work are usage errors, before any work.
         */
        DeviceSpec device(DeviceSpec requested, CommandSpec command, LoaderOptions options, boolean coldCache) {
            if (!decode.equals("cpu") && !decode.equals("nvdec")) {
                throw usage(command, "--decode: \"" + decode + "\" (expected: cpu or nvdec)");
            }
            if (!nvdec()) {
                if (sessions != null || noCpuFallback) {
                    throw usage(command, (sessions != null ? "--nvdec-sessions" : "--no-cpu-fallback")
                            + ": only with --decode nvdec");
                }
                return requested;
            }
            if (sessions != null && sessions < 1) {
                throw usage(command, "--nvdec-sessions: " + sessions + " (expected: 1+)");
            }
            boolean deviceGiven = command.commandLine().getParseResult().hasMatchedOption("--device");
            if (deviceGiven && !requested.isCuda()) {
                throw usage(command, "--decode nvdec with --device " + requested
                        + " (expected: --device cuda:N, or no --device for cuda:0; NVDEC decodes on a GPU)");
            }
            if (options.placement().splitAfter() != null) {
                throw usage(command, "--split-after with --decode nvdec (expected: one or the other; running fetch and"
                        + " demux in a child process is not supported with NVDEC yet)");
            }
            if (coldCache) {
                throw usage(command, "--cold with --decode nvdec (expected: one or the other; not supported together yet)");
            }
            for (String stage : List.of("decode", "convert")) {
                if (options.config().stages().containsKey(stage)) {
                    throw usage(command, "stage '" + stage + "' in --concurrency or --config with --decode nvdec"
                            + " (expected: the stages " + NvdecLoader.STAGES + "; --nvdec-sessions N for NVDEC)");
                }
            }
            return requested.isCuda() ? requested : DeviceSpec.cuda(0);
        }

        private static ParameterException usage(CommandSpec command, String message) {
            return new ParameterException(command.commandLine(), message);
        }
    }

    /** Parses {@code --device}; a usage error names what was expected. */
    static DeviceSpec parse(String text, CommandSpec command) {
        try {
            return DeviceSpec.parse(text);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(command.commandLine(),
                    "--device: \"" + text + "\" (expected: cpu, cuda or cuda:N)");
        }
    }

    /**
     * Fails at once, before any dataset work, when {@code spec} is a CUDA device this machine cannot give, or
     * NVDEC decoding is asked for and the driver's decoder library is missing:
     * {@code --device cuda:0: libcuda.so.1 not found: no NVIDIA driver on this machine}.
     */
    static void requireAvailable(DeviceSpec spec, boolean nvdec) {
        if (!spec.isCuda()) {
            return;
        }
        String prefix = nvdec ? "--decode nvdec on " + spec + ": " : "--device " + spec + ": ";
        String reason = Cuda.unavailableReason();
        if (reason == null) {
            try {
                Cuda.open(spec).close();
                if (nvdec) {
                    NvdecCodecs.requireDecoderLibrary();
                }
                return;
            } catch (GpuUnavailableException e) {
                reason = e.getMessage();
            }
        }
        throw new GpuUnavailableException(prefix + reason);
    }

    /**
     * The loader: {@code cpuLoader}'s on the CPU; on a GPU, the {@link GpuLoader} (batches collated into pinned
     * memory, each copied to the device while the next is loaded); with {@code --decode nvdec}, the NVDEC
     * loader. Every one is a {@link ClipLoader}: the bench drives them alike.
     */
    ClipLoader<? extends LoadedBatch> openLoader(Dataset data, LoaderOptions options, TraceRecorder trace,
                                                 Supplier<VideoLoader> cpuLoader) {
        if (decode.nvdec()) {
            LoaderOptions withSessions = decode.sessions == null ? options
                    : options.toBuilder().config(NvdecLoader.sessions(decode.sessions)).build();
            try {
                return NvdecLoader.open(data, withSessions, spec,
                        GpuDecodeOptions.defaults().withCpuFallback(!decode.noCpuFallback), trace);
            } catch (GpuUnavailableException e) {
                throw new GpuUnavailableException("--decode nvdec on " + spec + ": " + e.getMessage(), e);
            }
        }
        if (!spec.isCuda()) {
            return cpuLoader.get();
        }
        try {
            return GpuLoader.open(data, options, spec, TransferOptions.defaults(), trace);
        } catch (GpuUnavailableException e) {
            throw new GpuUnavailableException("--device " + spec + ": " + e.getMessage(), e);
        }
    }

    /** The CPU loader that decodes for {@code loader} (itself, or the GPU loader's), or null for NVDEC decoding. */
    static VideoLoader cpuLoader(ClipLoader<?> loader) {
        return switch (loader) {
            case VideoLoader cpu -> cpu;
            case GpuLoader gpu -> gpu.loader();
            default -> null;
        };
    }

    /** Prints where the NVDEC loader decoded its clips; other loaders have nothing to add. */
    void reportDecoding(ClipLoader<?> loader) {
        if (loader instanceof NvdecLoader nvdec) {
            out.println(summary(nvdec.device().id() + " (" + nvdec.device().name() + ")", nvdec.decodedClips(),
                    nvdec.cpuFallbackReasons()));
        }
    }

    /** {@code nvdec: 800 clips decoded, 12 of them on the CPU instead (codec av1: ... 12)}. */
    static String summary(String device, long clips, Map<String, Long> fallbacks) {
        long onCpu = fallbacks.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "nvdec: %d clips decoded on %s", clips - onCpu, device));
        if (onCpu > 0) {
            s.append(String.format(Locale.ROOT, ", %d on the CPU instead (", onCpu));
            String sep = "";
            for (Map.Entry<String, Long> e : fallbacks.entrySet()) {
                s.append(sep).append(e.getKey()).append(": ").append(e.getValue());
                sep = "; ";
            }
            s.append(')');
        }
        return s.toString();
    }

    @Override
    public String toString() {
        return decode.nvdec() ? spec + " (nvdec)" : spec.toString();
    }
}
