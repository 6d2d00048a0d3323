package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stoker.loader.DeviceSpec;
import org.junit.jupiter.api.Test;


class DeviceSpecTest {
    @Test
    void parsesCpuAndCudaDevices() {
        assertThat(DeviceSpec.parse("cpu")).isEqualTo(DeviceSpec.CPU);
        assertThat(DeviceSpec.parse("cuda")).isEqualTo(DeviceSpec.cuda(0));
        assertThat(DeviceSpec.parse("cuda:0")).isEqualTo(DeviceSpec.cuda(0));
        assertThat(DeviceSpec.parse(" CUDA:3 ")).isEqualTo(DeviceSpec.cuda(3));
        assertThat(DeviceSpec.cuda(1)).hasToString("cuda:1");
        assertThat(DeviceSpec.CPU.isCuda()).isFalse();
    }

    @Test
    void rejectsAnythingElseSayingWhatItExpects() {
        for (String bad : new String[] {"gpu", "cuda:", "cuda:-1", "cuda:x", "", "tpu:0"}) {
            assertThatThrownBy(() -> DeviceSpec.parse(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("device: \"" + bad + "\" (expected: cpu, cuda or cuda:N)");
        }
        assertThatThrownBy(() -> Cuda.open(DeviceSpec.CPU)).hasMessage("device: cpu (expected: cuda or cuda:N)");
    }
}
