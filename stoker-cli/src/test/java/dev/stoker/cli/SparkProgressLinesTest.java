package dev.stoker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/**
 * {@code stoker ingest --spark} draws the job's progress lines as the local ingest's progress bar (here in a log:
 * plain lines), passes every other line through, and prints the job's summary after the finished bar.
 */
class SparkProgressLinesTest {
    @Test
    void progressLinesBecomeTheIngestBarAndOtherLinesPassThrough() {
        StringWriter text = new StringWriter();
        try (SparkProgressLines shown = new SparkProgressLines(new PrintWriter(text), false)) {
            shown.line("copying the videos of s3://v/train into /tmp/x...");
            shown.line(SparkProgressLines.PREFIX + "3 1 28 1048576");
            shown.line("WARN TaskSetManager: Lost task 2.0 in stage 0.0");
            shown.line(SparkProgressLines.PREFIX + "28 5 28 18874368");
            shown.line("ingested 23 of 28 sources into /tmp/d on Spark: video, 5 partitions of 6 sources (5 run, 0 already committed) in 9.1 s");
        }
        String out = text.toString();
        assertThat(out).doesNotContain(SparkProgressLines.PREFIX);
        assertThat(out).contains("copying the videos of s3://v/train").contains("WARN TaskSetManager: Lost task 2.0");
        // The bar's last line (drawn when it closes), then the summary after it.
        assertThat(out).containsPattern("ingest: 28/28 sources  [0-9.]+/s  18\\.0 MiB written  5 failed");
        assertThat(out.indexOf("ingest: 28/28")).isLessThan(out.indexOf("ingested 23 of 28"));
    }
}
