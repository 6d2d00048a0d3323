package dev.stoker.serve.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stoker.gpu.DeviceBatch;
import dev.stoker.gpu.DeviceBatchSharing;
import dev.stoker.loader.ClipLoader;
import dev.stoker.loader.HostBatchLoader;
import dev.stoker.loader.LoaderOption;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.Loaders;
import dev.stoker.loader.Opening;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.batch.LoadedBatch;
import dev.stoker.loader.dataset.SamplerState;
import dev.stoker.observe.StatsPublisher;
import dev.stoker.pipeline.ProcessStats;
import dev.stoker.store.remote.RemoteAccess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * Serves a loader's batches to a consumer in another process (the PyTorch bridge): collate writes each batch
 * into a slot of a {@link SharedBatchMemory} file, and a {@link ControlChannel} says which slot holds which batch
 * (with labels, per-clip metadata and the resume state after it) and hears which the consumer released. The
 * protocol is in {@code docs/torch.md}.
 *
 * <p>The consumer's end of the channel closing (it closed, or died: a killed process closes its pipes) stops the
 * session: the file is removed at once and the process exits within {@link #EXIT_GRACE} even if a stage is stuck
 * in native code, so that a dead trainer never leaves a loader behind.
 *
 * <p>After its last epoch ({@code end}) the session waits for the consumer to close it: the batches it announced
 * live in the file, which the consumer may not have mapped yet (under load it reads the hello after the JVM has
 * served a short run), and it may still ask for stats. Exiting at {@code end} lost those batches and answered
 * nothing.
 */
public final class ServeSession {
    /**
     * The protocol version the hello message carries; the consumer refuses another. 2: an epoch end carries the
     * number of batches sent in it, so that the consumer can tell a whole epoch from a stream cut short.
     */
    public static final int PROTOCOL = 2;
    /** How long a session whose consumer has gone may take to stop before the process is halted. */
    public static final Duration EXIT_GRACE = Duration.ofMillis(1500);

    private final ServeSettings settings;
    private final ControlChannel channel;
    private final Map<Long, LoadedBatch> outstanding = new ConcurrentHashMap<>();
    private volatile boolean stopping;
    private volatile boolean finished;
    /** Counted down when the consumer closes the session or goes: what a session that served its run waits for. */
    private final CountDownLatch consumerDone = new CountDownLatch(1);
    private boolean loaderClosed;
    private volatile HostBatchLoader served;
    private volatile SharedBatchMemory memory;
    /** The loader when batches stay on the GPU (shared by CUDA IPC); null for host batches. */
    private volatile ServedDevice onDevice;

    private ServeSession(ServeSettings settings, ControlChannel channel) {
        this.settings = settings;
        this.channel = channel;
    }

    /**
     * Runs a session until every epoch was served, the consumer closed it or left, or the loader failed.
     *
     * @return the exit status: 0 when served or closed, 1 on an error (sent to the consumer first)
     */
    public static int run(ServeSettings settings, InputStream requests, OutputStream messages) {
        return new ServeSession(settings, new ControlChannel(requests, messages)).run();
    }

    private int run() {
        StatsPublisher publisher = null;
        try {
            // Reading from the start: a consumer that dies while the dataset opens (a large listing, a remote copy, a
            // damaged shard) closes the pipe, and the session must see it then, not only once it says hello.
            Thread.ofPlatform().daemon().name("stoker-serve-requests").start(this::readRequests);
            start();
            if (stopping) {
                return 0;   // the consumer left while the dataset opened
            }
            if (settings.publish() >= 0) {
                // Loopback only: the stats name the dataset's files, and nothing outside this machine asked for them.
                publisher = StatsPublisher.start(loader().pipeline(),
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), settings.publish()),
                        Duration.ofSeconds(1));
            }
            channel.send(hello(publisher));
            serveEpochs();
            channel.send(ControlChannel.message("end"));
            consumerDone.await();
            return 0;
        } catch (Exception e) {
            if (stopping) {
                return 0;
            }
            channel.send(ControlChannel.message("error").put("message", message(e)).put("kind", e.getClass().getSimpleName()));
            return 1;
        } finally {
            if (publisher != null) {
                publisher.close();
            }
            release();
            finished = true;
        }
    }

    /** The loader being served: on the GPU, or into host slots. */
    private ClipLoader<? extends LoadedBatch> loader() {
        return onDevice != null ? onDevice.loader() : served;
    }

    private void start() throws IOException {
        if (settings.device().isCuda()) {
            onDevice = ServedDevice.open(settings.dataset(), settings.options(), settings.device(), settings.resume());
            return;
        }
        LoaderOptions given = settings.options();
        int slots = settings.slots();
        long batchBytes = given.batchShape().batchBytes();
        LoaderOptions options = given.toBuilder().batchBudget(slots * batchBytes).build();
        settings.shm().removeStale();
        settings.shm().requireSpace(slots, SharedBatchMemory.slotBytes(batchBytes));
        memory = SharedBatchMemory.create(settings.shm().newFile(), batchBytes, slots);
        try {
            // Video files or shards (a folder, s3://, https://), whichever the location holds: the front door's choice.
            served = Loaders.open(settings.dataset(), options, Opening.defaults().resumingFrom(settings.resume())
                    .batchesIn(memory).with(new RemoteAccess(settings.s3Endpoint(), settings.cache())));
        } catch (IOException | RuntimeException e) {
            memory.freeAll();
            throw e;
        }
    }

    private ObjectNode hello(StatsPublisher publisher) {
        ClipLoader<? extends LoadedBatch> loader = loader();
        LoaderOptions options = settings.options();
        long clips = (long) loader.sampler().samplesPerEpoch() * options.clipsPerVideo();
        int batch = options.batch().size();
        long batches = options.batch().dropLast() ? clips / batch : (clips + batch - 1) / batch;
        ObjectNode m = ControlChannel.message("hello").put("protocol", PROTOCOL).put("pid", ProcessHandle.current().pid())
                .put("batches_per_epoch", batches).put("clips_per_epoch", clips)
                .put("world_size", options.sampling().worldSize())
                .put("layout", options.batch().layout().name());
        if (onDevice != null) {
            // Batches stay on the GPU: slots are device buffers, shared by CUDA IPC as each is first used.
            // Under the name the bridge's keyword for it has.
            m.put("device", settings.device().toString())
                    .put(LoaderOption.DECODE_DEVICE.keyword(), options.decode().device().toString());
        } else {
            m.put("file", memory.file().toString()).put("slot_bytes", memory.slotBytes()).put("slots", memory.slots());
        }
        if (publisher != null) {
            m.put("publish_port", publisher.address().getPort());
        }
        ArrayNode classes = m.putArray("classes");
        loader.classNames().forEach(classes::add);
        m.set("state", Messages.state(loader.state()));
        return m;
    }

    /** Every epoch's batches, each followed by an epoch end, until the loader's epochs run out or the session stops. */
    private void serveEpochs() {
        ClipLoader<? extends LoadedBatch> loader = loader();
        long id = 0;
        // Counted here, not read from the state: after an epoch whose tail drop_last dropped, the state still
        // stands in that epoch.
        int epoch = loader.state().epoch() - 1;
        while (!stopping) {
            epoch++;
            Iterator<? extends LoadedBatch> batches = loader.nextEpoch().iterator();
            long sent = 0;
            while (!stopping && batches.hasNext()) {
                LoadedBatch batch = batches.next();
                SamplerState after = loader.state();
                outstanding.put(++id, batch);
                if (!channel.send(message(id, epoch, batch, after))) {
                    consumerGone();
                }
                sent++;
            }
            if (stopping) {
                return;   // cut short: no epoch end, so that the consumer never reads a stop as an epoch's end
            }
            // "last": the run's end comes next, so that the consumer knows it now, not at its next read.
            boolean last = !loader.pipeline().hasMoreEpochs();
            ObjectNode end = ControlChannel.message("epoch_end").put("epoch", epoch).put("batches", sent).put("last", last);
            end.set("state", Messages.state(loader.state()));
            end.set("failures", Messages.failures(loader.failures()));
            channel.send(end);
            if (last) {
                return;
            }
        }
    }

    private ObjectNode message(long id, int epoch, LoadedBatch batch, SamplerState after) {
        if (batch instanceof DeviceBatch onGpu) {
            return Messages.deviceBatch(id, epoch, onGpu, onDevice.sharing().share(onGpu), after);
        }
        ClipBatch host = (ClipBatch) batch;
        int slot = memory.slotOf(host.data());
        return Messages.batch(id, epoch, slot, slot * memory.slotBytes(), host, after);
    }

    /**
     * The consumer is done with a batch. A device batch's slot goes back to the loader only once the release event the
     * consumer recorded on its stream ({@code event}: its handle, with the slot's first release) has completed.
     */
    private void release(LoadedBatch batch, String event) {
        if (batch instanceof DeviceBatch onGpu) {
            DeviceBatchSharing sharing = onDevice.sharing();
            sharing.release(sharing.slotOf(onGpu), event);
        }
        batch.close();
    }

    private void readRequests() {
        try {
            for (JsonNode request = channel.nextRequest(); request != null; request = channel.nextRequest()) {
                String op = request.path("op").asText();
                switch (op) {
                    case "release" -> {
                        LoadedBatch batch = outstanding.remove(request.path("id").asLong());
                        if (batch != null) {
                            release(batch, request.hasNonNull("event") ? request.get("event").asText() : null);
                        }
                    }
                    case "stats", "failures" -> {
                        ObjectNode reply = ControlChannel.message(op).put("req", request.path("req").asLong());
                        reply.set("stats", Messages.stats(loader().stats()));
                        reply.set("process", Messages.process(ProcessStats.read()));
                        reply.set("failures", Messages.failures(loader().failures()));
                        channel.send(reply);
                    }
                    case "close" -> {
                        stop();
                        return;
                    }
                    default -> channel.send(ControlChannel.message("warning").put("message",
                            "control channel: unknown op '" + op + "' (expected: release, stats, failures or close)"));
                }
            }
            consumerGone();
        } catch (RuntimeException e) {
            consumerGone();
        }
    }

    /** The consumer closed its end or died: remove the file now, stop, and make sure the process goes soon. */
    private void consumerGone() {
        try {
            if (memory != null) {
                Files.deleteIfExists(memory.file());
            }
        } catch (IOException e) {
            // the loader's close removes it again below
        }
        Thread.ofPlatform().daemon().name("stoker-serve-exit").start(() -> {
            try {
                Thread.sleep(EXIT_GRACE);
            } catch (InterruptedException e) {
                return;
            }
            if (!finished) {
                Runtime.getRuntime().halt(3);
            }
        });
        stop();
    }

    private void stop() {
        stopping = true;
        closeLoader();   // unblocks the serving loop, which then ends
        consumerDone.countDown();
    }

    private synchronized void closeLoader() {
        if (!loaderClosed && (served != null || onDevice != null)) {
            loaderClosed = true;
            if (onDevice != null) {
                onDevice.close();
            } else {
                served.close();
            }
        }
    }

    private void release() {
        stopping = true;
        outstanding.values().forEach(LoadedBatch::close);
        outstanding.clear();
        closeLoader();
        if (memory != null) {
            memory.freeAll();
        }
    }

    private static String message(Exception e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }
}
