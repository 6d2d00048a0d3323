package dev.stoker.bench.internal;

import dev.stoker.loader.LoaderOptions;
import dev.stoker.loader.clip.ClipSpec;
import dev.stoker.store.ClipReader;
import dev.stoker.store.internal.SampleInfo;
import dev.stoker.store.ShardDataset;
import dev.stoker.store.Verification;
import dev.stoker.video.ClipRequest;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code stoker bench formats}' answer to "is raw near memory bandwidth?": on one thread, in one run, the same
 * clips read from the mapped raw shards by a {@link ClipReader} (checksums checked on first read, and on every
 * read) and, as the yardstick, a plain {@link MemorySegment#copy} of the same number of bytes per clip from
 * the same mapped shards into the same destinations. Destinations rotate over batch-sized buffers, as a
 * loader's batch pool does; the page cache is warm. Rounds alternate between the three so that load on the
 * machine hits them alike; each figure is its best round.
 */
public final class RawReadBench {
    private static final int ROUNDS = 9;
    private static final int CLIPS_PER_SAMPLE = 8;
    private static final int BUFFERS = 7;

    /** Bytes per second of clip pixels written, and what was measured. */
    public record Result(double memcpyBytesPerSecond, double firstReadBytesPerSecond, double everyReadBytesPerSecond,
                  int clips, long clipBytes) {
    }

    private RawReadBench() {
    }

    /** Measures clips of {@code options}' geometry (centre crops) over every sample of the raw shards in {@code dir}. */
    public static Result measure(Path dir, LoaderOptions options) throws IOException {
        long clipBytes = (long) options.clip().frames() * options.size().width() * options.size().height() * 3;
        try (ShardDataset firstRead = ShardDataset.open(dir, Verification.FIRST_READ);
             ShardDataset everyRead = ShardDataset.open(dir, Verification.EVERY_READ);
             ClipReader firstReader = firstRead.newReader();
             ClipReader everyReader = everyRead.newReader();
             Arena arena = Arena.ofConfined()) {
            List<Integer> samples = new ArrayList<>();
            List<ClipSpec> specs = new ArrayList<>();
            for (SampleInfo s : firstRead.samples()) {
                double last = Math.max(0, s.durationSeconds() - options.clip().seconds(s.framesPerSecond()));
                for (int j = 0; j < CLIPS_PER_SAMPLE; j++) {
                    samples.add(s.index());
                    specs.add(options.clip().at(last * j / (CLIPS_PER_SAMPLE - 1)));
                }
            }
            int clips = samples.size();
            long batchBytes = (long) options.batch().size() * clipBytes;
            MemorySegment[] buffers = new MemorySegment[BUFFERS];
            for (int b = 0; b < BUFFERS; b++) {
                buffers[b] = arena.allocate(batchBytes, 64);
                buffers[b].fill((byte) 0); // fault the pages in before timing
            }
            List<ClipRequest> requests = new ArrayList<>(clips);
            List<MemorySegment> sources = new ArrayList<>(clips);
            for (int c = 0; c < clips; c++) {
                MemorySegment slot = buffers[(c / options.batch().size()) % BUFFERS]
                        .asSlice((long) (c % options.batch().size()) * clipBytes, clipBytes);
                requests.add(new ClipRequest(specs.get(c), options.resize(0), slot));
                MemorySegment span = firstRead.clipBytes(samples.get(c), List.of(specs.get(c)));
                if (span.byteSize() < clipBytes) {
                    throw new IllegalStateException(dir + ": sample " + samples.get(c) + " stores " + span.byteSize()
                            + " bytes for a clip of " + clipBytes + " (expected: raw shards at least the clip's size)");
                }
                sources.add(span);
            }
            // Untimed: brings every page in and checks every packet once, so FIRST_READ is in its steady state.
            readAll(firstReader, samples, requests);
            readAll(everyReader, samples, requests);
            double memcpy = 0;
            double first = 0;
            double every = 0;
            for (int round = 0; round < ROUNDS; round++) {
                long t = System.nanoTime();
                for (int c = 0; c < clips; c++) {
                    MemorySegment.copy(sources.get(c), 0, requests.get(c).destination(), 0, clipBytes);
                }
                memcpy = Math.max(memcpy, rate(clips * clipBytes, t));
                t = System.nanoTime();
                readAll(firstReader, samples, requests);
                first = Math.max(first, rate(clips * clipBytes, t));
                t = System.nanoTime();
                readAll(everyReader, samples, requests);
                every = Math.max(every, rate(clips * clipBytes, t));
            }
            return new Result(memcpy, first, every, clips, clipBytes);
        }
    }

    private static void readAll(ClipReader reader, List<Integer> samples, List<ClipRequest> requests) {
        for (int c = 0; c < requests.size(); c++) {
            reader.read(samples.get(c), requests.get(c));
        }
    }

    private static double rate(long bytes, long startNanos) {
        return bytes / ((System.nanoTime() - startNanos) / 1e9);
    }
}
