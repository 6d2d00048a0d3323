package dev.stoker.store.remote;

import dev.stoker.store.remote.internal.Retry;
import dev.stoker.store.remote.internal.ShardUpload;
import java.io.IOException;
import java.net.URI;
import org.gaul.s3proxy.junit.S3ProxyExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The S3 tests' server: s3proxy in this JVM on a temp folder, and what reaching it takes. (In stoker-store's
 * test-jar, for the S3 tests of the modules above it too.)
 */
public final class S3Server {
    private S3Server() {
    }

    /** A fresh server a test (register it with {@code @RegisterExtension}). */
    public static S3ProxyExtension extension() {
        return S3ProxyExtension.builder().withBlobStoreProvider("filesystem-nio2")
                .withCredentials("stoker", "stoker-secret").build();
    }

    /** Settings that reach {@code s3} at {@code endpoint} (the server itself, or a proxy in front of it). */
    public static S3BlobStore.Settings settings(S3ProxyExtension s3, URI endpoint) {
        return new S3BlobStore.Settings(endpoint, "us-east-1",
                StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.getAccessKey(), s3.getSecretKey())));
    }

    /** A plain S3 client of the server that {@code settings} reach, for putting a test's objects there. */
    public static S3Client client(S3BlobStore.Settings settings) {
        return S3Client.builder().endpointOverride(settings.endpoint()).forcePathStyle(true)
                .region(Region.of(settings.region())).credentialsProvider(settings.credentials())
                .httpClientBuilder(ApacheHttpClient.builder()).build();
    }

    public static void createBucket(S3BlobStore.Settings settings, String bucket) {
        try (S3Client s3 = client(settings)) {
            s3.createBucket(b -> b.bucket(bucket));
        }
    }

    /** Makes the bucket of {@code location} (an s3:// URL) and publishes the sample shards there. */
    static void publishSampleShards(S3BlobStore.Settings settings, String location) throws IOException {
        createBucket(settings, URI.create(location).getHost());
        try (BlobStore store = S3BlobStore.open(location, settings, Retry.standard())) {
            ShardUpload.publish(SampleShards.folder(), store);
        }
    }
}
