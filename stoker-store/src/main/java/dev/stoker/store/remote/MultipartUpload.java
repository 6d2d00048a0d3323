package dev.stoker.store.remote;

import dev.stoker.store.remote.internal.Retry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * A large file as an S3 multipart upload: parts retried one by one, the object appearing only at
 * {@code CompleteMultipartUpload} (readers never see part of it), the upload aborted when a part fails for good.
 */
final class MultipartUpload {
    private MultipartUpload() {
    }

    interface Requests {
        <T> T request(String name, S3BlobStore.Call<T> call) throws IOException;
    }

    static void upload(S3Client s3, Retry retry, String bucket, String key, String name, Path file, long size,
                       long partBytes, Requests requests) throws IOException {
        String uploadId = retry.call(name + ": create multipart upload",
                () -> requests.request(name, () -> s3.createMultipartUpload(r -> r.bucket(bucket).key(key)).uploadId()));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            List<CompletedPart> parts = new ArrayList<>();
            for (int part = 1; (part - 1) * partBytes < size; part++) {
                long from = (part - 1) * partBytes;
                long length = Math.min(partBytes, size - from);
                int number = part;
                String etag = retry.call(name + ": part " + part, () -> requests.request(name, () -> {
                    InputStream in;
                    try {
                        in = Channels.newInputStream(channel.position(from));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    return s3.uploadPart(r -> r.bucket(bucket).key(key).uploadId(uploadId).partNumber(number)
                            .contentLength(length), RequestBody.fromInputStream(in, length)).eTag();
                }));
                parts.add(CompletedPart.builder().partNumber(number).eTag(etag).build());
            }
            retry.call(name + ": complete multipart upload", () -> requests.request(name, () -> s3.completeMultipartUpload(
                    r -> r.bucket(bucket).key(key).uploadId(uploadId).multipartUpload(m -> m.parts(parts)))));
        } catch (IOException | RuntimeException e) {
            try {
                requests.request(name, () -> s3.abortMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId)));
            } catch (IOException | RuntimeException abort) {
                e.addSuppressed(abort);
            }
            throw e;
        }
    }
}
