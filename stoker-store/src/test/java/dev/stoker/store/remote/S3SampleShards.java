package dev.stoker.store.remote;

import java.net.URI;
import org.gaul.s3proxy.junit.S3ProxyExtension;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh S3 server (s3proxy in this JVM) for each test, with the sample shards published at {@link #LOCATION}
 * before the test starts; register it with {@code @RegisterExtension}.
 */
final class S3SampleShards implements BeforeEachCallback, AfterEachCallback {
    static final String LOCATION = "s3://videos/shards";

    private final S3ProxyExtension s3 = S3Server.extension();

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        s3.beforeEach(context);
        S3Server.publishSampleShards(settings(), LOCATION);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        s3.afterEach(context);
    }

    /** Where the server listens. */
    URI uri() { return s3.getUri(); }

    /** Settings that reach the server directly. */
    S3BlobStore.Settings settings() {
        return settings(uri());
    }

    /** Settings that reach the server at {@code endpoint} (a proxy in front of it). */
    S3BlobStore.Settings settings(URI endpoint) {
        return S3Server.settings(s3, endpoint);
    }
}
