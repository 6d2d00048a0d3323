package dev.stoker.video.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_H264;
import static org.bytedeco.ffmpeg.global.avcodec.AV_CODEC_ID_VP8;
import static org.bytedeco.ffmpeg.global.avcodec.AV_PKT_FLAG_KEY;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_alloc;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_free;
import static org.bytedeco.ffmpeg.global.avcodec.av_packet_unref;
import static org.bytedeco.ffmpeg.global.avformat.av_read_frame;
import static org.bytedeco.ffmpeg.global.avformat.avformat_close_input;
import static org.bytedeco.ffmpeg.global.avformat.avformat_find_stream_info;
import static org.bytedeco.ffmpeg.global.avformat.avformat_open_input;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.stoker.loader.dataset.Dataset;
import dev.stoker.loader.dataset.VideoEntry;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.bytedeco.ffmpeg.avcodec.AVCodecParameters;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avformat.AVFormatContext;
import org.bytedeco.ffmpeg.avformat.AVInputFormat;
import org.bytedeco.ffmpeg.avutil.AVDictionary;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoDatasetTest {

    /** 2 classes × 2 clips × 2 s: global clip 3 is the VP8 one, so both codecs are covered. */
    private static final DemoSpec SPEC = DemoSpec.small(2, 2, 2.0);
    private static final int FRAMES = 60;

    @TempDir
    static Path root;

    @BeforeAll
    static void generate() throws IOException {
        DemoDataset.create(root, SPEC);
    }

    @Test
    void layoutIsAKineticsTreeWithAMarkerAndNoTemporaryFiles() throws IOException {
        Dataset dataset = Dataset.open(root);
        assertThat(dataset.classNames()).containsExactly("abseiling", "archery");
        assertThat(dataset.entries()).extracting(e -> e.path().getFileName().toString()).containsExactly(
                "abseiling_000.mp4", "abseiling_001.mp4", "archery_000.mp4", "archery_001.webm");
        assertThat(dataset.entries()).extracting(VideoEntry::label).containsExactly(0, 0, 1, 1);
        assertThat(Files.readString(root.resolve(DemoDataset.MARKER), StandardCharsets.UTF_8))
                .contains("\"generatorVersion\": " + DemoDataset.GENERATOR_VERSION);
        try (Stream<Path> files = Files.walk(root)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(name -> name.endsWith(".tmp"));
        }
        assertThat(DemoDataset.isComplete(root, SPEC)).isTrue();
        assertThat(DemoDataset.isComplete(root, DemoSpec.small(2, 3, 2.0))).isFalse();
    }

    @Test
    void streamsHaveTheRightCodecSizeFrameCountAndOneLongGop() throws IOException {
        for (VideoEntry entry : Dataset.open(root).entries()) {
            Demuxed video = demux(entry.path());
            boolean webm = entry.path().toString().endsWith(".webm");
            assertThat(video.codecId).as(entry.path().toString()).isEqualTo(webm ? AV_CODEC_ID_VP8 : AV_CODEC_ID_H264);
            assertThat(video.width).isEqualTo(340);
            assertThat(video.height).isEqualTo(256);
            assertThat(video.keyframePackets).as("keyframes of %s", entry.path()).containsExactly(0);
            assertThat(video.packets).isEqualTo(FRAMES);
            // A few hundred kbit/s, like Kinetics at 340x256: not flat frames that compress to nothing.
            long bitsPerSecond = Files.size(entry.path()) * 8 / 2;
            assertThat(bitsPerSecond).as("bit rate of %s", entry.path()).isBetween(150_000L, 1_500_000L);
        }
    }

    @Test
    void ffprobeAgreesOnProfileFrameRateAndDecodedFrames() throws Exception {
        assumeTrue(onPath("ffprobe"), "ffprobe is not on PATH: the JavaCPP demux test covers the basics");
        Path mp4 = root.resolve("abseiling/abseiling_000.mp4");
        String probe = run("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                "stream=codec_name,profile,width,height,r_frame_rate,nb_read_frames,pix_fmt", "-of", "compact", mp4.toString());
        assertThat(probe).contains("codec_name=h264", "profile=Constrained Baseline", "width=340", "height=256",
                "pix_fmt=yuv420p", "r_frame_rate=30/1", "nb_read_frames=" + FRAMES);
        Path webm = root.resolve("archery/archery_001.webm");
        assertThat(run("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                "stream=codec_name,nb_read_frames", "-of", "compact", webm.toString()))
                .contains("codec_name=vp8", "nb_read_frames=" + FRAMES);
    }

    @Test
    void ensureReusesACompleteDatasetAndRepairsAnIncompleteOne() throws IOException {
        Path clip = root.resolve("abseiling/abseiling_000.mp4");
        FileTime before = FileTime.fromMillis(1_000_000L);
        Files.setLastModifiedTime(clip, before);
        DemoDataset.ensure(root, SPEC);
        assertThat(Files.getLastModifiedTime(clip)).isEqualTo(before);

        Path missing = root.resolve("archery/archery_000.mp4");
        Files.delete(missing);
        assertThat(DemoDataset.isComplete(root, SPEC)).isFalse();
        DemoDataset.ensure(root, SPEC);
        assertThat(missing).isRegularFile();
        assertThat(DemoDataset.isComplete(root, SPEC)).isTrue();
    }

    @Test
    void contentIsDeterministic() throws IOException {
        // Byte-identical files: same seed, same pictures, and the muxers stamp no wall-clock time.
        Path again = Files.createTempDirectory(root.getParent(), "again");
        try {
            DemoDataset.create(again, DemoSpec.small(2, 1, 0.5));
            DemoDataset.create(again.resolve("b"), DemoSpec.small(2, 1, 0.5));
            assertThat(Files.mismatch(again.resolve("archery/archery_000.mp4"),
                    again.resolve("b/archery/archery_000.mp4"))).isEqualTo(-1L);
        } finally {
            try (Stream<Path> files = Files.walk(again)) {
                files.sorted(java.util.Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    private record Demuxed(int codecId, int width, int height, int packets, List<Integer> keyframePackets) {
    }

    private static Demuxed demux(Path file) throws IOException {
        AVFormatContext format = new AVFormatContext(null);
        if (avformat_open_input(format, file.toString(), (AVInputFormat) null, (AVDictionary) null) < 0) {
            throw new IOException("cannot open " + file);
        }
        AVPacket packet = av_packet_alloc();
        try {
            if (avformat_find_stream_info(format, (AVDictionary) null) < 0) {
                throw new IOException("no stream info in " + file);
            }
            assertThat(format.nb_streams()).isEqualTo(1);
            AVCodecParameters parameters = format.streams(0).codecpar();
            int packets = 0;
            List<Integer> keyframes = new ArrayList<>();
            while (av_read_frame(format, packet) >= 0) {
                if ((packet.flags() & AV_PKT_FLAG_KEY) != 0) {
                    keyframes.add(packets);
                }
                packets++;
                av_packet_unref(packet);
            }
            return new Demuxed(parameters.codec_id(), parameters.width(), parameters.height(), packets, keyframes);
        } finally {
            av_packet_free(packet);
            avformat_close_input(format);
        }
    }

    private static boolean onPath(String tool) {
        String path = System.getenv("PATH");
        return path != null && Stream.of(path.split(File.pathSeparator))
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, tool)));
    }

    private static String run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        return output;
    }
}
