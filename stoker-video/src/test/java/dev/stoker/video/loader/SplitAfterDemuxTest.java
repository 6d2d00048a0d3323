package dev.stoker.video.loader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.VideoStage;
import dev.stoker.loader.batch.BatchLayout;
import dev.stoker.loader.batch.ClipBatch;
import dev.stoker.loader.clip.DecodedClip;
import dev.stoker.loader.clip.Resize;
import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.VideoEntry;
import dev.stoker.pipeline.Pipeline;
import dev.stoker.pipeline.PipelineBuilder;
import dev.stoker.pipeline.subprocess.SubprocessOptions;
import dev.stoker.video.ClipDecoder;
import dev.stoker.video.ClipRequest;
import dev.stoker.video.demo.DemoFolders;
import dev.stoker.video.demo.DemoSpec;
import dev.stoker.video.loader.internal.DemuxFactory;
import dev.stoker.video.loader.internal.FetchFactory;
import dev.stoker.video.loader.internal.LoaderCodecs;
import dev.stoker.video.loader.internal.OpenedVideo;
import dev.stoker.video.loader.internal.OpenedVideoCodec;
import dev.stoker.video.loader.internal.VideoTask;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;


/**
 * Demux in a child JVM ({@link LoaderOptions.Placement#splitAfter()} {@code "demux"}): a video demuxed there and rebuilt
 * here from its packets ({@link OpenedVideoCodec}) decodes byte-identical clips to one demuxed in
 * this process, and the loader split after demux delivers the same batches as the loader in one process.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SplitAfterDemuxTest {
    private static final Path demo = DemoFolders.of(DemoSpec.small(2, 2, 1.0));

    /** Shared samples with B-frames (negative dts), no pts (AVI), rotation, 10-bit, VP8: when present. */
    private static final List<String> SAMPLES = List.of("mmaction2_test_340x256.mp4", "decord_unordered_50x50.mov",
            "mmaction2_test_mpeg4_mp3.avi", "jsonize_iphone_rotated.mov", "torchcodec_h264_10bit.mp4",
            "mdn_stream_of_water_vp8.webm");

    /** A quick child: C1 only, serial GC, small heap. */
    private static SubprocessOptions child() {
        return SubprocessOptions.codecs(new LoaderCodecs.VideoTaskCodec(), new OpenedVideoCodec())
                .jvmArgs("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC").maxHeap("256m");
    }

    private static List<Path> files() throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(demo)) {
            walk.filter(p -> p.toString().matches(".*\\.(mp4|webm)")).sorted().forEach(files::add);
        }
        String shared = System.getProperty("stoker.shared.videos");
        for (String name : SAMPLES) {
            if (shared != null && Files.isRegularFile(Path.of(shared, name))) {
                files.add(Path.of(shared, name));
            }
        }
        return files;
    }

    private static PipelineBuilder<OpenedVideo> fetchAndDemux(List<VideoTask> tasks, LoaderOptions options) {
        return Pipeline.from(tasks)
                .map("fetch", FetchFactory.class, options.toJson())
                .map("demux", DemuxFactory.class, options.toJson());
    }

    @Test
    void videosDemuxedInAChildDecodeTheSameClipsAsVideosDemuxedHere() throws IOException {
        List<Path> files = files();
        List<VideoTask> tasks = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            tasks.add(new VideoTask(new VideoEntry(files.get(i), i, "c", OptionalDouble.empty(), OptionalDouble.empty()),
                    i, 0, i, 0));
        }
        LoaderOptions options = LoaderOptions.builder().clip(8, 2).clipStarts(LoaderOptions.ClipStarts.UNIFORM, 3, 1).build();
        Resize resize = Resize.centerCrop(64, 64, 64);
        long clipBytes = 8L * 64 * 64 * 3;
        List<Path> checked = new ArrayList<>();
        try (Pipeline<OpenedVideo> here = fetchAndDemux(tasks, options).build();
             Pipeline<OpenedVideo> split = fetchAndDemux(tasks, options).isolate(child()).build();
             Arena arena = Arena.ofConfined(); ClipDecoder decoder = new ClipDecoder()) {
            var local = here.iterator();
            var crossed = split.iterator();
            MemorySegment expected = arena.allocate(clipBytes);
            MemorySegment actual = arena.allocate(clipBytes);
            while (local.hasNext()) {
                try (OpenedVideo a = local.next(); OpenedVideo b = crossed.next()) {
                    String name = a.task().entry().path().toString();
                    assertThat(b.task()).isEqualTo(a.task());
                    assertThat(b.clipStarts()).as(name).containsExactly(a.clipStarts());
                    assertThat(b.video().info()).as(name).isEqualTo(a.video().info());
                    for (double start : a.clipStarts()) {
                        expected.fill((byte) 0);
                        actual.fill((byte) 1);
                        DecodedClip x = decoder.decode(a.video(), new ClipRequest(options.clip().at(start), resize, expected));
                        DecodedClip y = decoder.decode(b.video(), new ClipRequest(options.clip().at(start), resize, actual));
                        assertThat(y.frameIndices()).as(name + " @" + start).isEqualTo(x.frameIndices());
                        assertThat(y.ptsSeconds()).as(name + " @" + start).isEqualTo(x.ptsSeconds());
                        assertThat(actual.mismatch(expected)).as(name + " @" + start + " pixels").isEqualTo(-1);
                    }
                    checked.add(a.task().entry().path());
                }
            }
            assertThat(crossed.hasNext()).isFalse();
            assertThat(split.stats().stage("child:demux").itemsOut()).isEqualTo(files.size());
            assertThat(split.failures()).isEmpty();
        }
        assertThat(checked).containsExactlyElementsOf(files);
    }

    @Test
    void loaderSplitAfterDemuxDeliversTheSameBatchesAsInProcess() throws IOException {
        Dataset dataset = Dataset.open(demo);
        LoaderOptions options = LoaderOptions.builder().order(5, true, 1).batch(2, false, BatchLayout.NTHWC)
                .clipStarts(LoaderOptions.ClipStarts.RANDOM, 2, 1).build();
        List<byte[]> inProcess = batches(dataset, options);
        List<byte[]> split = batches(dataset, options.toBuilder().splitAfter(VideoStage.DEMUX).build());
        assertThat(inProcess).hasSize(4);
        assertThat(split).hasSameSizeAs(inProcess);
        for (int i = 0; i < inProcess.size(); i++) {
            assertThat(split.get(i)).as("batch " + i).isEqualTo(inProcess.get(i));
        }
    }

    /** Each batch's labels then pixels. */
    private static List<byte[]> batches(Dataset dataset, LoaderOptions options) {
        List<byte[]> out = new ArrayList<>();
        try (VideoLoader loader = VideoLoader.open(dataset, options)) {
            for (ClipBatch batch : loader) {
                try (batch) {
                    byte[] pixels = batch.data().toArray(ValueLayout.JAVA_BYTE);
                    byte[] all = new byte[pixels.length + batch.labels().length];
                    for (int i = 0; i < batch.labels().length; i++) {
                        all[i] = (byte) batch.labels()[i];
                    }
                    System.arraycopy(pixels, 0, all, batch.labels().length, pixels.length);
                    out.add(all);
                }
            }
            List<String> stages = loader.pipeline().stats().stages().stream().map(s -> s.name()).toList();
            if (options.placement().splitAfter() != null) {
                assertThat(stages).contains("child:fetch", "child:demux").doesNotContain("fetch", "demux");
                assertThat(loader.pipeline().stats().stage("child:demux").itemsOut()).isEqualTo(dataset.size());
            } else {
                assertThat(stages).contains("fetch", "demux");
            }
        }
        return out;
    }
}
