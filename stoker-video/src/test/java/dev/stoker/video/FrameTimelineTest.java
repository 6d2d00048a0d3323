package dev.stoker.video;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The timeline built from packet timestamps (B-frame reordering, negative dts, edit lists) lists
 * exactly the timestamps the decoder outputs when it decodes the whole file: the decoder is the
 * ground truth clip selection relies on.
 */
class FrameTimelineTest {
    static Stream<SampleVideos.Entry> samples() {
        return SampleVideos.healthy().stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void timelineEqualsTheDecodersOutputTimestamps(SampleVideos.Entry sample) {
        try (Video video = Video.open(sample.path());
             DecoderContext decoder = DecoderContext.open(video, 1)) {
            List<Long> decoded = new ArrayList<>();
            long step = FrameTimeline.nominalStep(video.packets());
            DecoderContext.FrameSink sink = frame -> decoded.add(FrameTimeline.stampOf(frame,
                    decoded.isEmpty() ? PacketStore.NO_TIMESTAMP : decoded.getLast(), step));
            for (int i = 0; i < video.packets().count(); i++) {
                decoder.feed(video.packets(), i, true, sink);
            }
            decoder.drain(sink);

            List<Long> timeline = new ArrayList<>();
            for (int i = 0; i < video.frameCount(); i++) {
                timeline.add(video.timeline().timestamp(i));
            }
            assertThat(decoded).as("decoder output order is presentation order").isSorted();
            assertThat(decoded).containsExactlyElementsOf(timeline);
        }
    }
}
