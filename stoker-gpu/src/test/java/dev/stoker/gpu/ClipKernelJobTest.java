package dev.stoker.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.clip.Resize;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The clip kernel's argument as Java writes it and the kernel reads it: the PTX declares one by-value parameter of
 * {@link ClipKernelJob#BYTES}, and the {@code ClipJob} struct of the kernel's source, compiled by g++, reads every
 * field of a job {@link ClipKernelJob} wrote where Java put it (strides of both layouts, crop window, frames).
 */
@Timeout(120)
class ClipKernelJobTest {

    @Test
    void thePtxTakesTheJobByValueAtItsSize() {
        Matcher m = Pattern.compile("\\.entry nv12_to_rgb_clip\\(\\s*\\.param \\.align 8 \\.b8 nv12_to_rgb_clip_param_0\\[(\\d+)]")
                .matcher(Nv12Kernel.ptx());
        assertThat(m.find()).as("nv12_to_rgb_clip's parameter in the PTX").isTrue();
        assertThat(Integer.parseInt(m.group(1))).isEqualTo(ClipKernelJob.BYTES);
        assertThat(Nv12Kernel.ptx()).contains(".entry nv12_to_rgb(").contains(".version 7.0").contains(".target sm_75");
    }

    @Test
    void theKernelsStructReadsTheJobJavaWrote(@TempDir Path dir) throws IOException, InterruptedException {
        Path cuda = Path.of("src/main/cuda").toAbsolutePath();
        assumeTrue(Files.isRegularFile(cuda.resolve("nv12_to_rgb.cu")), "kernel source not found at " + cuda);
        Path source = dir.resolve("nv12_host_harness.cpp");
        try (InputStream in = ClipKernelJobTest.class.getResourceAsStream("nv12_host_harness.cpp")) {
            Files.copy(in, source, StandardCopyOption.REPLACE_EXISTING);
        }
        Path harness = dir.resolve("harness");
        Process gcc;
        try {
            gcc = new ProcessBuilder("g++", "-O1", "-I", cuda.toString(), "-o", harness.toString(), source.toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("g++.log").toFile()).start();
        } catch (IOException e) {
            assumeTrue(false, "needs g++ to compile the kernel's struct");
            return;
        }
        assertThat(gcc.waitFor()).as("g++ (see " + dir.resolve("g++.log") + ")").isZero();

        assertThat(print(dir, harness, BatchLayout.NTHWC, false)).containsExactly(
                "dst=4096 channelStride=1 rowStride=336 slotStride=37632 pixelStride=3 dst=112x112 src=340x256"
                        + " crop=57,0,226,256 colour=3 frames=2",
                "frame 0: y=1000000 uv=1087040 yPitch=512 uvPitch=512 slot=3",
                "frame 1: y=2000000 uv=2087040 yPitch=512 uvPitch=512 slot=0");
        assertThat(print(dir, harness, BatchLayout.NCTHW, false)).first().asString()
                .startsWith("dst=4096 channelStride=100352 rowStride=112 slotStride=12544 pixelStride=1 ");
        // A mirrored clip: the kernel's dst is slot 0's last column, its pixel stride negated; slots stay apart as before.
        assertThat(print(dir, harness, BatchLayout.NTHWC, true)).first().asString()
                .startsWith("dst=4429 channelStride=1 rowStride=336 slotStride=37632 pixelStride=-3 ");
        assertThat(print(dir, harness, BatchLayout.NCTHW, true)).first().asString()
                .startsWith("dst=4207 channelStride=100352 rowStride=112 slotStride=12544 pixelStride=-1 ");
    }

    private static List<String> print(Path dir, Path harness, BatchLayout layout, boolean mirrored)
            throws IOException, InterruptedException {
        try (Arena arena = Arena.ofConfined()) {
            ClipKernelJob job = new ClipKernelJob(arena);
            job.reset(4096, layout, 8, 112, 112, 340, 256, new Resize.Window(57, 0, 226, 256), 3, mirrored);
            assertThat(job.clipPointer()).isEqualTo(4096);
            job.add(1_000_000, 512, 1_000_000 + 512L * 170, 512, 3);
            job.add(2_000_000, 512, 2_000_000 + 512L * 170, 512, 0);
            Path file = dir.resolve("job-" + layout);
            Files.write(file, job.segment().toArray(ValueLayout.JAVA_BYTE));
            Process p = new ProcessBuilder(harness.toString(), "job", file.toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor()).as(out).isZero();
            return out.lines().toList();
        }
    }
}
