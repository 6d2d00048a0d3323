package dev.stoker.video.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.pipeline.Failure;
import dev.stoker.pipeline.FailureBudget;
import dev.stoker.video.FailureReason;
import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files the fetch stage must not read whole: a named pipe (the read waited forever for a writer, and the loader with
 * it) and a file larger than an array holds (an OutOfMemoryError, every epoch). Each is a named failure of its own
 * file, quarantined, while the good videos load.
 */
class UnreadableFilesTest {
    @TempDir
    Path dir;

    @Test
    void aNamedPipeAndAFileOver2GiBAreNamedFailuresNotAHangOrAnOutOfMemoryError() throws Exception {
        Path demo = DemoDataset.create(dir.resolve("demo"), DemoSpec.small(2, 2, 1.0));
        Path cls = Files.list(demo).filter(Files::isDirectory).sorted().findFirst().orElseThrow();
        Path pipe = cls.resolve("pipe.mp4");
        Process mkfifo = new ProcessBuilder("mkfifo", pipe.toString()).inheritIO().start();
        assertThat(mkfifo.waitFor()).isZero();
        Path huge = cls.resolve("huge.mp4");
        try (RandomAccessFile file = new RandomAccessFile(huge.toFile(), "rw")) {
            file.setLength(3L << 30); // sparse: no disk used
        }
        LoaderOptions options = LoaderOptions.builder().clip(4, 2).size(32, 32, Resize.Mode.SHORT_SIDE_CENTER_CROP, 0)
                .batch(2, false, BatchLayout.NTHWC).order(3, false, 2).failureBudget(FailureBudget.rate(0.9, 20))
                .quarantine(dir.resolve("quarantine.jsonl")).build();
        List<String> delivered = new ArrayList<>();
        List<Failure> failures;
        try (VideoLoader loader = VideoLoader.open(Dataset.open(demo), options)) {
            assertTimeoutPreemptively(Duration.ofSeconds(300), () -> {
                for (ClipBatch batch : loader) {
                    try (batch) {
                        batch.clips().forEach(c -> delivered.add(c.path().toString()));
                    }
                }
            }, "a hang on the pipe");
            failures = loader.pipeline().failures();
        }
        Map<String, String> reasons = failures.stream().collect(Collectors.toMap(Failure::item, Failure::reason));
        assertThat(reasons).containsOnly(Map.entry(pipe.toString(), FailureReason.UNKNOWN_FORMAT.code()),
                Map.entry(huge.toString(), FailureReason.TOO_LARGE.code()));
        assertThat(failures).as("each once: quarantined after its first epoch").hasSize(2);
        assertThat(delivered).hasSize(4 * 2).doesNotContain(pipe.toString(), huge.toString());
    }
}
