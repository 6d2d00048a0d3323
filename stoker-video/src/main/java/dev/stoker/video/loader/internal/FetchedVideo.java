package dev.stoker.video.loader.internal;

import dev.stoker.video.Video;
import dev.stoker.video.internal.FrameFolder;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A video's bytes, read into memory by the fetch stage so that demux does no I/O: a video file's bytes, or, for a
 * video stored as a folder of images ({@code folder} not null), the frames its clips show, one after another.
 */
public record FetchedVideo(VideoTask task, byte[] bytes, Folder folder) {

    /** A video file's bytes. */
    public FetchedVideo(VideoTask task, byte[] bytes) {
        this(task, bytes, null);
    }

    /**
     * What a folder of images' fetch read beyond the frames' bytes: the codec and size of the frames read, the
     * listing's frame count, which frames were read and where each lies in the bytes, and the clip starts the fetch
     * drew to choose them (demux takes them as they are: drawn again they would be the same).
     */
    public record Folder(String codec, int width, int height, int frameCount, int[] indices, int[] offsets,
                         double[] clipStarts) {

        /** The folder's frames as a {@link Video} holding the ones read ({@code bytes}), at {@code fps}. */
        Video video(String path, byte[] bytes, double fps) {
            return FrameFolder.video(path, codec, frameCount, new FrameFolder.Frames(indices, offsets, bytes, width, height), fps);
        }

        byte[] toBytes() {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream(64 + 8 * indices.length + 8 * clipStarts.length);
            try (DataOutputStream out = new DataOutputStream(buffer)) {
                out.writeUTF(codec);
                out.writeInt(width);
                out.writeInt(height);
                out.writeInt(frameCount);
                out.writeInt(indices.length);
                for (int i = 0; i < indices.length; i++) {
                    out.writeInt(indices[i]);
                    out.writeInt(offsets[i]);
                }
                out.writeInt(clipStarts.length);
                for (double start : clipStarts) {
                    out.writeDouble(start);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return buffer.toByteArray();
        }

        static Folder fromBytes(byte[] bytes) {
            try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(bytes))) {
                String codec = in.readUTF();
                int width = in.readInt();
                int height = in.readInt();
                int frameCount = in.readInt();
                int[] indices = new int[in.readInt()];
                int[] offsets = new int[indices.length];
                for (int i = 0; i < indices.length; i++) {
                    indices[i] = in.readInt();
                    offsets[i] = in.readInt();
                }
                double[] starts = new double[in.readInt()];
                for (int i = 0; i < starts.length; i++) {
                    starts[i] = in.readDouble();
                }
                return new Folder(codec, width, height, frameCount, indices, offsets, starts);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Override
    public String toString() { return task.toString(); }
}
