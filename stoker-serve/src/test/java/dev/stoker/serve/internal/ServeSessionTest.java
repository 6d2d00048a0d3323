package dev.stoker.serve.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.pipeline.internal.PrivateFiles;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import dev.stoker.video.loader.VideoLoader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session driven through its two streams as the Python bridge drives it: the bytes it announces in the shared
 * file are, batch for batch, those an in-process {@link VideoLoader} of the same options collates.
 */
class ServeSessionTest {
    @TempDir
    static Path tmp;
    static Path dataset;

    @BeforeAll
    static void demo() throws IOException {
        dataset = DemoDataset.create(tmp.resolve("demo"), DemoSpec.small(2, 3, 2.0));
    }

    static LoaderOptions options() {
        return LoaderOptions.builder().clip(4, 2).size(48, 32, Resize.Mode.SHORT_SIDE_CENTER_CROP, 0)
                .batch(4, false, BatchLayout.NTHWC).order(11, true, 1).build();
    }

    static List<byte[]> inProcessBatches() throws IOException {
        List<byte[]> expected = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(Dataset.open(dataset), options())) {
            for (ClipBatch batch : loader.nextEpoch()) {
                expected.add(batch.data().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
                batch.close();
            }
        }
        return expected;
    }

    @Test
    void theSlotsHoldExactlyTheBatchesAnInProcessLoaderCollates() throws Exception {
        List<byte[]> expected = inProcessBatches();
        Path shm = Files.createDirectories(tmp.resolve("shm"));
        // Two epochs: the first one's end says that another comes.
        ServeSettings settings = new ServeSettings(dataset, options().toBuilder().order(11, true, 2).build(), 2, 0,
                new SharedMemoryDir(shm), null, -1);
        try (ServeDriver session = ServeDriver.start(settings)) {
            JsonNode hello = session.next();
            assertThat(hello.path("type").asText()).isEqualTo("hello");
            assertThat(hello.path("batches_per_epoch").asLong()).isEqualTo(expected.size());
            assertThat(hello.path("slots").asInt()).isEqualTo(settings.slots());
            Path file = Path.of(hello.path("file").asText());
            // In this user's own folder of the tmpfs, which only the user may enter; the file only the user may read.
            assertThat(file.getParent()).isEqualTo(shm.resolve("stoker-" + PrivateFiles.userId()));
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent()))).isEqualTo("rwx------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
            List<byte[]> served = new ArrayList<>();
            JsonNode m;
            try (FileChannel channel = FileChannel.open(file)) {
                for (m = session.next(); m.path("type").asText().equals("batch"); m = session.next()) {
                    ByteBuffer bytes = ByteBuffer.allocate(m.path("nbytes").asInt());
                    channel.read(bytes, m.path("offset").asLong());
                    served.add(bytes.array());
                    assertThat(m.path("offset").asLong() % SharedBatchMemory.SLOT_ALIGNMENT).isZero();
                    assertThat(m.path("labels").size()).isEqualTo(m.path("shape").get(0).asInt());
                    session.send("{\"op\":\"release\",\"id\":" + m.path("id").asLong() + "}");
                }
            }
            assertThat(served).hasSameSizeAs(expected);
            // The epoch's end is a message of its own that counts the batches sent, not the stream falling silent.
            assertThat(m.path("type").asText()).isEqualTo("epoch_end");
            assertThat(m.path("epoch").asInt()).isZero();
            assertThat(m.path("batches").asLong()).isEqualTo(served.size());
            assertThat(m.path("last").isBoolean()).isTrue();
            assertThat(m.path("last").asBoolean()).as("the first of two epochs is not the last").isFalse();
            for (int i = 0; i < served.size(); i++) {
                assertThat(served.get(i)).as("batch %d", i).isEqualTo(expected.get(i));
            }
            session.closeRequests();
            assertThat(session.exitStatus()).isZero();
            assertThat(file).doesNotExist();
        }
    }

    @Test
    void afterItsLastEpochTheSessionKeepsItsBatchesUntilTheConsumerCloses() throws Exception {
        List<byte[]> expected = inProcessBatches();
        Path shm = Files.createDirectories(tmp.resolve("shm-end"));
        // Slots for the whole epoch: the session serves it and says its end with no release from the consumer, as it
        // does when the consumer is slow to read its hello.
        ServeSettings settings = new ServeSettings(dataset, options(), expected.size(), 0, new SharedMemoryDir(shm),
                null, -1);
        try (ServeDriver session = ServeDriver.start(settings)) {
            JsonNode hello = session.next();
            List<JsonNode> batches = new ArrayList<>();
            JsonNode m;
            for (m = session.next(); m.path("type").asText().equals("batch"); m = session.next()) {
                batches.add(m);
            }
            assertThat(m.path("type").asText()).isEqualTo("epoch_end");
            assertThat(m.path("last").asBoolean()).as("the epoch end says the run's end comes next").isTrue();
            assertThat(session.next().path("type").asText()).isEqualTo("end");
            // Only now does the consumer map the file: every batch is still there, and so is the session.
            Path file = Path.of(hello.path("file").asText());
            try (FileChannel channel = FileChannel.open(file)) {
                for (int i = 0; i < batches.size(); i++) {
                    ByteBuffer bytes = ByteBuffer.allocate(batches.get(i).path("nbytes").asInt());
                    channel.read(bytes, batches.get(i).path("offset").asLong());
                    assertThat(bytes.array()).as("batch %d after the end", i).isEqualTo(expected.get(i));
                }
            }
            assertThat(batches).hasSameSizeAs(expected);
            // It still answers: the consumer's stats after its last epoch.
            session.send("{\"op\":\"stats\",\"req\":1}");
            JsonNode reply = session.next();
            assertThat(reply.path("type").asText()).isEqualTo("stats");
            assertThat(reply.path("req").asLong()).isEqualTo(1);
            assertThat(session.status()).isNotDone();
            session.send("{\"op\":\"close\"}");
            assertThat(session.exitStatus()).isZero();
            assertThat(file).doesNotExist();
        }
    }

    @Test
    void tooLittleSpaceIsAnErrorNamingTheBytesAndTheFix() {
        SharedMemoryDir dir = new SharedMemoryDir(tmp);
        assertThatThrownBy(() -> dir.requireSpace(6, Long.MAX_VALUE / 8))
                .hasMessageContaining(" bytes (").hasMessageContaining("--shm-size=")
                .hasMessageContaining("lower batch_size or prefetch");
    }

    @Test
    void aStaleFileOfADeadProcessIsRemovedAndALiveOnesIsKept() throws Exception {
        Path shm = new SharedMemoryDir(Files.createDirectories(tmp.resolve("stale"))).folder();
        Process dead = new ProcessBuilder("true").start();
        dead.waitFor(10, TimeUnit.SECONDS);
        Path stale = Files.writeString(shm.resolve("stoker-" + dead.pid() + "-00ff.shm"), "x");
        Path live = Files.writeString(shm.resolve("stoker-" + ProcessHandle.current().pid() + "-00ff.shm"), "x");
        assertThat(new SharedMemoryDir(shm.getParent()).removeStale()).containsExactly(stale);
        assertThat(live).exists();
    }
}
