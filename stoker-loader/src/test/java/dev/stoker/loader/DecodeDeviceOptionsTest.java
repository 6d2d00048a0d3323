package dev.stoker.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Where clips are decoded, in the options' decode group: cpu by default, the mode and the NVDEC sessions through the
 * builder and the JSON form (lower case, as the CLI and Python spell it; any case read), a file naming neither keeps
 * the defaults, bad values named.
 */
class DecodeDeviceOptionsTest {

    @Test
    void theDefaultIsTheCpuWithOneSessionPerEngine() {
        LoaderOptions.Decode decode = LoaderOptions.defaults().decode();
        assertThat(decode.device()).isEqualTo(DecodeDevice.CPU);
        assertThat(decode.nvdecSessions()).isZero();
        assertThat(new LoaderOptions.Decode(2, false, true).device()).isEqualTo(DecodeDevice.CPU);
    }

    @Test
    void theModeAndSessionsRoundTripThroughJsonInLowerCase() {
        LoaderOptions hybrid = LoaderOptions.builder().decoder(2, true).decodeOn(DecodeDevice.HYBRID, 7).build();
        String json = hybrid.toJson();
        assertThat(json).contains("\"device\" : \"hybrid\"").contains("\"nvdecSessions\" : 7");
        LoaderOptions back = LoaderOptions.fromJson(json);
        assertThat(back).isEqualTo(hybrid);
        assertThat(back.decode().threads()).isEqualTo(2);
        assertThat(LoaderOptions.fromJson("{\"decode\": {\"device\": \"NVDEC\"}}").decode())
                .isEqualTo(new LoaderOptions.Decode(1, true, false, DecodeDevice.NVDEC, 0));
        assertThat(LoaderOptions.fromJson("{\"decode\": {\"threads\": 3}}").decode().device())
                .as("a file that names no device decodes on the CPU").isEqualTo(DecodeDevice.CPU);
        assertThat(hybrid.toBuilder().fusedConvert(true).build().decode().device())
                .as("other decode settings keep the mode").isEqualTo(DecodeDevice.HYBRID);
    }

    @Test
    void badValuesAreNamed() {
        assertThatThrownBy(() -> DecodeDevice.of("tpu"))
                .hasMessage("decode: \"tpu\" (expected: one of cpu, nvdec, hybrid, auto)");
        assertThatThrownBy(() -> LoaderOptions.fromJson("{\"decode\": {\"device\": \"tpu\"}}"))
                .hasMessage("decode.device: \"tpu\" (expected: one of cpu, nvdec, hybrid, auto)");
        assertThatThrownBy(() -> new LoaderOptions.Decode(1, true, false, DecodeDevice.NVDEC, -1))
                .hasMessage("nvdecSessions: -1 (expected: 0+, 0: one per engine)");
        assertThat(DecodeDevice.HYBRID.onGpu()).isTrue();
        assertThat(DecodeDevice.CPU.onGpu()).isFalse();
    }
}
