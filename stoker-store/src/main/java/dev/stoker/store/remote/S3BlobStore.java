package dev.stoker.store.remote;

import dev.stoker.store.remote.internal.ByteRange;
import dev.stoker.store.remote.internal.Retry;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.AbortedException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@code s3://bucket/prefix} through the AWS SDK v2 sync client over the Apache HTTP client. One client per
 * settings is shared by every store opened with them (its connection pool and reaper thread are the costly
 * part) and closed with the last store. The SDK's own retries are off: {@link Retry} retries every backend
 * alike and counts what it did. Checksums are computed and validated only where S3 requires them, since the
 * SDK's default (since 2.30) breaks S3 compatibles.
 */
public final class S3BlobStore implements BlobStore {
    /** Shards above this size are uploaded in parts, so a failed part is all that is sent again. */
    static final long MULTIPART_BYTES = 64L << 20;
    static final long PART_BYTES = 16L << 20;

    /** Where and as whom: {@code endpoint} null for AWS itself; {@code credentials} null for the default chain. */
    public record Settings(URI endpoint, String region, AwsCredentialsProvider credentials) {
        /** The usual AWS settings (environment, system properties, profile), plus an endpoint for S3 compatibles. */
        public static Settings fromEnvironment(URI endpoint) {
            String region;
            try {
                region = new DefaultAwsRegionProviderChain().getRegion().id();
            } catch (SdkClientException e) {
                region = "us-east-1"; // S3 compatibles rarely care; AWS redirects nothing for us-east-1 signing
            }
            return new Settings(endpoint, region, null);
        }
    }

    private static final Map<Settings, Shared> CLIENTS = new HashMap<>();

    private record Shared(S3Client client, int[] users) {
    }

    private final String location;
    private final Settings settings;
    private final S3Client s3;
    private final String bucket;
    private final String prefix;
    private final Retry retry;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong bytesRead = new AtomicLong();
    private boolean closed;

    private S3BlobStore(String location, Settings settings, S3Client s3, String bucket, String prefix, Retry retry) {
        this.location = location;
        this.settings = settings;
        this.s3 = s3;
        this.bucket = bucket;
        this.prefix = prefix;
        this.retry = retry;
    }

    /** Opens {@code s3://bucket/prefix}. */
    public static S3BlobStore open(String location, Settings settings, Retry retry) {
        URI uri = URI.create(location);
        if (!"s3".equals(uri.getScheme()) || uri.getHost() == null || uri.getHost().isEmpty()) {
            throw new IllegalArgumentException(location + ": not an S3 location (expected: s3://bucket/prefix)");
        }
        String prefix = uri.getPath() == null ? "" : uri.getPath().replaceAll("^/+", "");
        if (!prefix.isEmpty() && !prefix.endsWith("/")) {
            prefix += "/";
        }
        return new S3BlobStore(location, settings, acquire(settings), uri.getHost(), prefix, retry);
    }

    private static synchronized S3Client acquire(Settings settings) {
        Shared shared = CLIENTS.computeIfAbsent(settings, s -> new Shared(build(s), new int[1]));
        shared.users[0]++;
        return shared.client;
    }

    private static synchronized void release(Settings settings) {
        Shared shared = CLIENTS.get(settings);
        if (shared != null && --shared.users[0] == 0) {
            CLIENTS.remove(settings);
            shared.client.close();
        }
    }

    private static S3Client build(Settings s) {
        var builder = S3Client.builder()
                .httpClientBuilder(ApacheHttpClient.builder().maxConnections(64))
                .region(Region.of(s.region()))
                .credentialsProvider(s.credentials() != null ? s.credentials() : DefaultCredentialsProvider.builder().build())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .overrideConfiguration(o -> o.retryStrategy(DefaultRetryStrategy.doNotRetry()));
        if (s.endpoint() != null) {
            // S3 compatibles (s3proxy, MinIO, Ceph) serve buckets as paths, not as host names.
            builder.endpointOverride(s.endpoint()).forcePathStyle(true);
        }
        return builder.build();
    }

    @Override
    public String location() { return location; }

    @Override
    public List<String> list() throws IOException {
        return retry.call(location + ": list", () -> request(location, () -> {
            List<String> keys = new ArrayList<>();
            for (S3Object o : s3.listObjectsV2Paginator(r -> r.bucket(bucket).prefix(prefix)).contents()) {
                keys.add(o.key().substring(prefix.length()));
            }
            keys.sort(null);
            return keys;
        }));
    }

    @Override
    public long size(String key) throws IOException {
        return head(key).sizeBytes();
    }

    @Override
    public Head head(String key) throws IOException {
        String name = name(key);
        return retry.call(name + ": HEAD", () -> request(name, () -> {
            var head = s3.headObject(r -> r.bucket(bucket).key(prefix + key));
            return new Head(head.contentLength(), head.eTag());
        }));
    }

    @Override
    public byte[] read(String key, ByteRange range) throws IOException {
        if (range.length() == 0) {
            return new byte[0];
        }
        String name = name(key);
        return retry.call(name + ": GET " + range.header(), () -> {
            ResponseBytes<GetObjectResponse> response = request(name,
                    () -> s3.getObjectAsBytes(r -> r.bucket(bucket).key(prefix + key).range(range.header())));
            byte[] body = response.asByteArrayUnsafe();
            bytesRead.addAndGet(body.length);
            return RangedBody.slice(name, range, response.response().contentRange() != null, body);
        });
    }

    @Override
    public void put(String key, Path file) throws IOException {
        String name = name(key);
        long size = java.nio.file.Files.size(file);
        if (size <= MULTIPART_BYTES) {
            retry.call(name + ": PUT", () -> request(name, () -> s3.putObject(r -> r.bucket(bucket).key(prefix + key), RequestBody.fromFile(file))));
            return;
        }
        MultipartUpload.upload(s3, retry, bucket, prefix + key, name, file, size, PART_BYTES, this::request);
    }

    @Override
    public boolean putIfAbsent(String key, byte[] bytes) throws IOException {
        String name = name(key);
        return retry.call(name + ": conditional PUT", () -> {
            try {
                return request(name, () -> {
                    s3.putObject(r -> r.bucket(bucket).key(prefix + key).ifNoneMatch("*"), RequestBody.fromBytes(bytes));
                    return true;
                });
            } catch (ConditionFailed e) {
                // Equal bytes are this writer's own earlier attempt (its response lost) or an equal rerun: committed.
                return java.util.Arrays.equals(readAll(key), bytes);
            }
        });
    }

    @Override
    public void delete(String key) throws IOException {
        String name = name(key);
        retry.call(name + ": DELETE", () -> request(name, () -> s3.deleteObject(r -> r.bucket(bucket).key(prefix + key))));
    }

    @Override
    public Stats stats() {
        return new Stats(requests.get(), retry.retries(), bytesRead.get());
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            release(settings);
        }
    }

    private String name(String key) {
        return "s3://" + bucket + "/" + prefix + key;
    }

    /** A 412 to a conditional PUT: another writer's object is there. */
    static final class ConditionFailed extends IOException {
        ConditionFailed(String message) {
            super(message);
        }
    }

    @FunctionalInterface
    interface Call<T> {
        T call();
    }

    /** One request, its SDK errors sorted into absent / lost race / transient / final. */
    <T> T request(String name, Call<T> call) throws IOException {
        requests.incrementAndGet();
        try {
            return call.call();
        } catch (S3Exception e) {
            int status = e.statusCode();
            String code = e.awsErrorDetails() == null ? "" : e.awsErrorDetails().errorCode();
            if (status == 404) {
                throw new NoSuchFileException(name, null, "no such object (" + code + ")");
            }
            if (status == 412) {
                throw new ConditionFailed(name + ": exists (412 to If-None-Match)");
            }
            if (status == 503 || status == 500 || status == 429 || "SlowDown".equals(code)) {
                throw new Retry.Transient(status + " " + code, e);
            }
            throw new IOException(name + ": " + status + " " + code + ": " + e.getMessage(), e);
        } catch (AbortedException e) {
            // The SDK's answer to an interrupt (a closing loader stopping its read-ahead); it clears the flag.
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(name + ": interrupted");
        } catch (SdkClientException e) {
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedIOException(name + ": interrupted");
            }
            // Connection refused/reset, a body cut short: the network's fault, worth another attempt.
            throw new Retry.Transient(String.valueOf(e.getMessage()), e);
        } catch (UncheckedIOException e) {
            throw new Retry.Transient(String.valueOf(e.getMessage()), e.getCause());
        } catch (SdkException e) {
            throw new IOException(name + ": " + e.getMessage(), e);
        }
    }
}
