package dev.stoker.cli;

import dev.stoker.gpu.GpuDecodeOptions;
import dev.stoker.loader.DeviceSpec;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.serve.internal.ServeSession;
import dev.stoker.serve.internal.ServeSettings;
import dev.stoker.serve.internal.SharedMemoryDir;
import dev.stoker.store.remote.BlockCache;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code stoker serve}: the JVM side of the PyTorch bridge ({@code python/stoker}), which starts it. Standard
 * output is the control channel (JSON lines), so everything else this process prints goes to standard error.
 */
@Command(name = "serve",
        header = "Serve a loader's batches to another process through shared memory (the PyTorch bridge's JVM side).",
        mixinStandardHelpOptions = true,
        description = {
                "Runs the loader (video dataset or shard folder) with collate writing each batch into a slot of a",
                "shared-memory file in --shm-dir, and speaks a JSON-lines protocol on standard input and output:",
                "which slot holds which batch (labels, clip metadata, resume state), which the consumer released.",
                "Started by python's stoker.torch.VideoLoader; the protocol is in docs/torch.md. Exits when the",
                "consumer closes standard input or dies, removing the file.",
                "",
        },
        footerHeading = "%nExamples:%n",
        footer = {
                "  python3 -c 'import stoker.torch as s; print(len(s.VideoLoader(\"DATA\")))'",
                "  stoker serve DATA --batch 8 --world-size 2 < requests.jsonl   as the bridge",
        })
final class ServeCommand extends Subcommand {
    @Mixin
    LoaderOptionsMixin loader;

    // Defaults from LoaderOptions (LoaderFlagDefaults); each laid over the options only when given.
    @Option(names = "--rank") int rank;
    @Option(names = "--world-size") int worldSize;
    @Option(names = "--drop-last") boolean dropLast;
    @Option(names = "--epochs") int epochs;
    @Option(names = "--prefetch", defaultValue = "4") int prefetch;
    @Option(names = "--hold", defaultValue = "0") int hold;
    @Option(names = "--shm-dir", defaultValue = "/dev/shm", paramLabel = "DIR") Path shmDir;
    @Option(names = "--resume", paramLabel = "FILE") Path resume;
    @Option(names = "--publish", paramLabel = "PORT") Integer publish;
    @Option(names = "--device", defaultValue = "cpu", paramLabel = "cpu|cuda:N") String device;

    @Override
    public Integer call() throws IOException {
        // The session sees its consumer go by the pipe's end, once it reads the pipe; before that (a remote copy, a
        // shard probe, a large listing) the consumer's going shows only as its process's exit: the loader's process
        // started this one, and nothing it opens must outlive it.
        AtomicBoolean serving = new AtomicBoolean();
        String named = System.getenv(ServeConsumer.ENV);
        Optional<ProcessHandle> consumer;
        try {
            consumer = ServeConsumer.of(named);
        } catch (IllegalArgumentException e) {
            // The bridge's variable, not the user's flags: said, and the parent watched as without it.
            System.err.println("stoker serve: " + e.getMessage() + "; watching the parent process instead");
            named = null;
            consumer = ServeConsumer.of(null);
        }
        if (named != null && consumer.isEmpty()) {
            System.err.println("stoker serve: its consumer, process " + named.strip() + " (" + ServeConsumer.ENV
                    + "), has exited: nothing to serve");
            System.err.flush();
            Runtime.getRuntime().halt(3);
        }
        consumer.ifPresent(c -> c.onExit().thenRun(() -> {
            if (!serving.get()) {
                Runtime.getRuntime().halt(3);
            }
        }));
        PrintStream channel = System.out;
        System.setOut(System.err);   // stray prints (a library's, the demo dataset's progress) must not corrupt the channel
        PrintWriter log = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        LoaderOptions options;
        try {
            LoaderOptions given = GpuDecodeOptions.resolve(loader.loaderOptions());
            LoaderOptions.Sampling s = given.sampling();
            options = given.toBuilder()
                    .rank(loader.given("--rank") ? rank : s.rank(), loader.given("--world-size") ? worldSize : s.worldSize())
                    .batch(given.batch().size(), dropLast || given.batch().dropLast(), given.batch().layout())
                    .order(s.seed(), s.shuffle(), loader.given("--epochs") ? epochs : s.epochs())
                    .build();
        } catch (IllegalArgumentException e) {
            throw usageError(CliErrors.asOption(e, Map.of("rank", "--rank", "worldSize", "--world-size", "epochs", "--epochs")));
        }
        SamplerState state = null;
        if (resume != null) {
            try {
                state = SamplerState.fromJson(Files.readString(resume));
            } catch (IOException | IllegalArgumentException e) {
                throw usageError("--resume: " + resume + ": " + CliErrors.describe(e));
            }
        }
        DeviceSpec batchesOn = BenchDevice.parse(device, spec);
        if (batchesOn.isCuda()) {
            BenchDevice.requireAvailable(batchesOn, options.decode().device());
        }
        String dataset = loader.location(log).name();
        BlockCache.Settings cache = loader.blockCache();
        ServeSettings settings;
        try {
            settings = new ServeSettings(dataset, loader.s3Endpoint, cache, options, prefetch, hold, new SharedMemoryDir(shmDir),
                    state, publish == null ? -1 : publish, batchesOn);
        } catch (IllegalArgumentException e) {
            throw usageError(CliErrors.asOption(e, Map.of("prefetch", "--prefetch", "hold", "--hold")));
        }
        serving.set(true);   // the session reads the pipe from here on
        return ServeSession.run(settings, System.in, channel);
    }
}
