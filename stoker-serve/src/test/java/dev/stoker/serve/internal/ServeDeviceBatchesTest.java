package dev.stoker.serve.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stoker.gpu.Cuda;
import dev.stoker.loader.DecodeDevice;
import dev.stoker.loader.DeviceSpec;
import dev.stoker.loader.LoaderOptions;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a session's batches go: decoded on NVDEC they stay on the GPU (device batches by CUDA IPC), so they need a CUDA
 * device, and decoded on the CPU they are host batches whatever the device. Without a GPU, a session asked for device
 * batches ends at once with an error message naming what is missing, and leaves no file. (The IPC protocol's Java
 * side is DeviceBatchSharingTest's; its GPU side is bench/gpu/ipc_check.py's.)
 */
class ServeDeviceBatchesTest {
    static LoaderOptions decodedOn(DecodeDevice device) {
        return ServeSessionTest.options().toBuilder().decodeOn(device, 0).build();
    }

    @Test
    void batchesDecodedOnNvdecNeedACudaDeviceAndCpuDecodedOnesStayOnTheHost(@TempDir Path shm) {
        assertThatThrownBy(() -> new ServeSettings("/data", null, null, decodedOn(DecodeDevice.NVDEC), 2, 0,
                new SharedMemoryDir(shm), null, -1, DeviceSpec.CPU))
                .hasMessage("device: cpu with decode nvdec (expected: cuda:N; batches decoded on NVDEC stay on the GPU)");
        ServeSettings cpu = new ServeSettings("/data", null, null, decodedOn(DecodeDevice.CPU), 2, 0,
                new SharedMemoryDir(shm), null, -1, DeviceSpec.cuda(0));
        assertThat(cpu.device()).as("decoded on the CPU: host batches, the consumer copies them up").isEqualTo(DeviceSpec.CPU);
        ServeSettings hybrid = new ServeSettings("/data", null, null, decodedOn(DecodeDevice.HYBRID), 2, 0,
                new SharedMemoryDir(shm), null, -1, DeviceSpec.cuda(1));
        assertThat(hybrid.device()).isEqualTo(DeviceSpec.cuda(1));
    }

    @Test
    void withoutAGpuASessionForDeviceBatchesEndsAtOnceNamingWhatIsMissing(@TempDir Path shm, @TempDir Path data)
            throws Exception {
        Assumptions.assumeFalse(Cuda.available(), "this machine has a GPU: the failure path cannot be seen here");
        Path dataset = DemoDataset.create(data.resolve("demo"), DemoSpec.small(1, 1, 1.0));
        ServeSettings settings = new ServeSettings(dataset.toString(), null, null,
                decodedOn(DecodeDevice.NVDEC), 2, 0, new SharedMemoryDir(shm), null, -1, DeviceSpec.cuda(0));
        try (ServeDriver session = ServeDriver.start(settings)) {
            JsonNode error = session.next();
            assertThat(error.path("type").asText()).isEqualTo("error");
            assertThat(error.path("message").asText()).isEqualTo(Cuda.unavailableReason());
        }
        try (var files = Files.list(shm)) {
            assertThat(files).as("no shared-memory file for device batches").isEmpty();
        }
    }
}
