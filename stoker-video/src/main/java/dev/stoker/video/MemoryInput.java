package dev.stoker.video;

import static org.bytedeco.ffmpeg.global.avformat.AVSEEK_FORCE;
import static org.bytedeco.ffmpeg.global.avformat.AVSEEK_SIZE;
import static org.bytedeco.ffmpeg.global.avformat.avio_alloc_context;
import static org.bytedeco.ffmpeg.global.avformat.avio_context_free;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_EOF;
import static org.bytedeco.ffmpeg.global.avutil.AVERROR_EXTERNAL;
import static org.bytedeco.ffmpeg.global.avutil.av_free;
import static org.bytedeco.ffmpeg.global.avutil.av_malloc;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.ffmpeg.avformat.AVIOContext;
import org.bytedeco.ffmpeg.avformat.Read_packet_Pointer_BytePointer_int;
import org.bytedeco.ffmpeg.avformat.Seek_Pointer_long_int;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;

/**
 * An AVIOContext that reads a file's bytes from a {@link MemorySegment}, so that containers are
 * demuxed from memory (bytes fetched from object storage, or an mmapped file) with no temp file.
 *
 * <p>One read and one seek callback serve every instance: each JavaCPP callback object costs a
 * native thunk from a small fixed pool, so they are created once, kept strongly reachable in
 * static fields, and find their input through the opaque pointer, which carries a registry id.
 */
final class MemoryInput implements AutoCloseable {
    private static final int BUFFER_BYTES = 64 * 1024;
    private static final Map<Long, MemoryInput> OPEN = new ConcurrentHashMap<>();
    private static final AtomicLong IDS = new AtomicLong();

    private static final Read_packet_Pointer_BytePointer_int READ = new Read_packet_Pointer_BytePointer_int() {
        @Override
        public int call(Pointer opaque, BytePointer buffer, int bufferBytes) {
            try {
                MemoryInput input = OPEN.get(opaque.address());
                return input == null ? AVERROR_EXTERNAL : input.read(buffer.address(), bufferBytes);
            } catch (Throwable t) {
                return AVERROR_EXTERNAL;
            }
        }
    };

    private static final Seek_Pointer_long_int SEEK = new Seek_Pointer_long_int() {
        @Override
        public long call(Pointer opaque, long offset, int whence) {
            try {
                MemoryInput input = OPEN.get(opaque.address());
                return input == null ? AVERROR_EXTERNAL : input.seek(offset, whence);
            } catch (Throwable t) {
                return AVERROR_EXTERNAL;
            }
        }
    };

    private final MemorySegment bytes;
    private final long id;
    private long position;
    private AVIOContext context;

    MemoryInput(MemorySegment bytes, String path) {
        this.bytes = bytes;
        this.id = IDS.incrementAndGet();
        Pointer buffer = av_malloc(BUFFER_BYTES);
        if (buffer == null || buffer.isNull()) {
            throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.INTERNAL, "av_malloc failed");
        }
        OPEN.put(id, this);
        Pointer opaque = new Pointer() {
            {
                address = id;
            }
        };
        AVIOContext created = avio_alloc_context(new BytePointer(buffer), BUFFER_BYTES, 0, opaque, READ, null, SEEK);
        if (created == null || created.isNull()) {
            OPEN.remove(id);
            av_free(buffer);
            throw new VideoException(path, VideoException.Operation.OPEN, FailureReason.INTERNAL, "avio_alloc_context failed");
        }
        this.context = created;
    }

    AVIOContext context() { return context; }

    private int read(long destinationAddress, int bufferBytes) {
        long remaining = bytes.byteSize() - position;
        if (remaining <= 0) {
            return AVERROR_EOF;
        }
        int count = (int) Math.min(remaining, bufferBytes);
        MemorySegment.copy(bytes, position, MemorySegment.ofAddress(destinationAddress).reinterpret(count), 0, count);
        position += count;
        return count;
    }

    private long seek(long offset, int whence) {
        int mode = whence & ~AVSEEK_FORCE;
        if (mode == AVSEEK_SIZE) {
            return bytes.byteSize();
        }
        long target = switch (mode) {
            case 0 -> offset; // SEEK_SET
            case 1 -> position + offset; // SEEK_CUR
            case 2 -> bytes.byteSize() + offset; // SEEK_END
            default -> -1;
        };
        if (target < 0 || target > bytes.byteSize()) {
            return AVERROR_EXTERNAL;
        }
        position = target;
        return target;
    }

    @Override
    public void close() {
        if (context != null) {
            // FFmpeg may have replaced the buffer we gave it, so free the one it holds now.
            av_free(context.buffer());
            context.buffer(null);
            avio_context_free(context);
            context = null;
            OPEN.remove(id);
        }
    }
}
