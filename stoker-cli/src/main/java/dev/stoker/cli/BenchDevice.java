package dev.stoker.cli;

import dev.stoker.gpu.Cuda;
import dev.stoker.gpu.GpuDecodeOptions;
import dev.stoker.gpu.GpuLoader;
import dev.stoker.gpu.GpuUnavailableException;
import dev.stoker.gpu.NvdecCodecs;
import dev.stoker.gpu.NvdecLoader;
import dev.stoker.loader.ClipLoader;
import dev.stoker.loader.DecodeDevice;
import dev.stoker.loader.DeviceSpec;
import dev.stoker.loader.HostBatchLoader;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.LoaderStage;
import dev.stoker.loader.Opening;
import dev.stoker.loader.VideoStage;
import dev.stoker.loader.batch.LoadedBatch;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code stoker bench --device} and {@code --decode}: where batches end up and where clips are decoded.
 * {@code --device cpu} (the default) leaves batches in host memory; {@code cuda:N} has collate write them
 * into pinned memory and copies each to device N while the next one is loaded. {@code --decode nvdec}
 * decodes on the GPU's NVDEC engines instead ({@link NvdecLoader}): the batches are assembled on the device
 * and nothing of the pixels crosses PCIe; {@code --decode hybrid} decodes on NVDEC and the CPU at once, and
 * {@code --decode auto} picks from what the machine has ({@link GpuDecodeOptions#resolve}). {@code --decode} and
 * {@code --nvdec-sessions} are every loader command's ({@link LoaderOptionsMixin}: the options' decode group).
 */
record BenchDevice(DeviceSpec spec, DecodeOptions decode, DecodeDevice mode, PrintWriter out) {

    /** {@code --no-cpu-fallback}: a mixin of {@code stoker bench}. */
    static final class DecodeOptions {
        @Option(names = "--no-cpu-fallback") boolean noCpuFallback;

        /**
         * The device the run needs, once the options are checked: GPU decoding without {@code --device} means
         * {@code cuda:0}. Combinations that cannot work are usage errors, before any work.
         */
        DeviceSpec device(DeviceSpec requested, CommandSpec command, LoaderOptions options, boolean coldCache) {
            DecodeDevice mode = options.decode().device();
            String flag = "--decode " + mode;
            if (!mode.onGpu()) {
                if (options.decode().nvdecSessions() > 0 || noCpuFallback) {
                    throw usage(command, (noCpuFallback ? "--no-cpu-fallback" : "--nvdec-sessions")
                            + ": only with --decode nvdec or hybrid");
                }
                return requested;
            }
            boolean deviceGiven = command.commandLine().getParseResult().hasMatchedOption("--device");
            if (deviceGiven && !requested.isCuda()) {
                throw usage(command, flag + " with --device " + requested
                        + " (expected: --device cuda:N, or no --device for cuda:0; NVDEC decodes on a GPU)");
            }
            if (options.placement().splitAfter() != null) {
                throw usage(command, "--split-after with " + flag + " (expected: one or the other; running fetch and"
                        + " demux in a child process is not supported with NVDEC yet)");
            }
            if (coldCache) {
                throw usage(command, "--cold with " + flag + " (expected: one or the other; not supported together yet)");
            }
            for (VideoStage stage : List.of(VideoStage.DECODE, VideoStage.CONVERT)) {
                if (stage == VideoStage.DECODE && mode == DecodeDevice.HYBRID) {
                    continue;   // the hybrid loader's CPU workers
                }
                if (options.config().stages().containsKey(stage.stageName())) {
                    throw usage(command, "stage '" + stage.stageName() + "' in --concurrency or --config with " + flag
                            + " (expected: the stages " + LoaderStage.names(NvdecLoader.STAGES)
                            + "; --nvdec-sessions N for NVDEC)");
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
    static void requireAvailable(DeviceSpec spec, DecodeDevice mode) {
        if (!spec.isCuda()) {
            return;
        }
        boolean nvdec = mode.onGpu();
        String prefix = nvdec ? "--decode " + mode + " on " + spec + ": " : "--device " + spec + ": ";
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
     * The loader of {@code dataset} ({@link DatasetLocation#open}, so {@code Loaders.onDevice}): on the CPU, its host
     * loader (video files or shards); on a GPU, the {@link GpuLoader} over it (batches collated into pinned memory,
     * each copied to the device while the next is loaded); with {@code --decode nvdec}, the NVDEC loader. Every one is
     * a {@link ClipLoader}: the bench drives them alike. A GPU that cannot be had is named by the flag that asked.
     */
    ClipLoader<? extends LoadedBatch> openLoader(CommandSpec command, DatasetLocation dataset, LoaderOptions options,
                                                 Opening opening) throws IOException {
        try {
            return dataset.open(command, spec, options,
                    opening.with(GpuDecodeOptions.defaults().withCpuFallback(!decode.noCpuFallback)));
        } catch (GpuUnavailableException e) {
            throw new GpuUnavailableException((mode.onGpu() ? "--decode " + mode + " on " + spec : "--device " + spec)
                    + ": " + e.getMessage(), e);
        }
    }

    /** The host loader under {@code loader}: itself, or the one a GPU loader copies from; null for NVDEC decoding. */
    static HostBatchLoader hostLoader(ClipLoader<?> loader) {
        return switch (loader) {
            case HostBatchLoader host -> host;
            case GpuLoader gpu -> gpu.loader();
            default -> null;
        };
    }

    /** The CPU loader that decodes for {@code loader} (itself, or the GPU loader's), or null for NVDEC decoding. */
    static VideoLoader cpuLoader(ClipLoader<?> loader) {
        return hostLoader(loader) instanceof VideoLoader cpu ? cpu : null;
    }

    /**
     * Prints where the NVDEC loader decoded its clips: the hybrid loader's two pools (the stage table's rows for them),
     * the clips by path, the CPU fallbacks; other loaders have nothing to add.
     */
    void reportDecoding(ClipLoader<?> loader) {
        if (loader instanceof NvdecLoader nvdec) {
            nvdec.decodePools().forEach(p -> out.println(p.line()));
            out.println("decoded by: " + nvdec.clipsByPath());
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
        return mode.onGpu() ? spec + " (" + mode + ")" : spec.toString();
    }
}
