package dev.stoker.store.remote;

import dev.stoker.store.remote.internal.ByteRange;
import dev.stoker.store.remote.internal.Retry;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Objects behind plain HTTP(S), read-only. Opened on a CSV manifest ({@code https://host/videos.csv}, first column
 * a URL, absolute or relative to the manifest; a header row starting {@code url} is skipped) or a folder URL
 * ending in {@code /}; keys resolve against it. Reads are ranged GETs; a server that ignores {@code Range}
 * (200 with the whole body, as the JDK's {@code jwebserver}) still works, at the cost of the whole transfer.
 */
final class HttpBlobStore implements BlobStore {
    private final URI base;
    private final HttpClient http;
    private final Retry retry;
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong bytesRead = new AtomicLong();

    private HttpBlobStore(URI base, Retry retry) {
        this.base = base;
        this.retry = retry;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NORMAL).build();
    }

    public static HttpBlobStore open(URI location, Retry retry) {
        return new HttpBlobStore(location, retry);
    }

    @Override
    public String location() { return base.toString(); }

    @Override
    public List<String> list() throws IOException {
        if (base.getPath().endsWith("/")) {
            throw new IOException(base + ": an HTTP folder cannot be listed (expected: a CSV manifest of URLs)");
        }
        return manifest().lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .map(l -> l.split(",", 2)[0].strip()).filter(u -> !u.equalsIgnoreCase("url")).sorted().toList();
    }

    /** The CSV manifest this store was opened on, as text. */
    public String manifest() throws IOException {
        return new String(get(base, null), StandardCharsets.UTF_8);
    }

    /** Where {@code key} (a name, or a URL of a manifest row: absolute or relative to the manifest) points. */
    public URI resolve(String key) {
        return base.resolve(key);
    }

    @Override
    public long size(String key) throws IOException {
        return head(key).sizeBytes();
    }

    @Override
    public Head head(String key) throws IOException {
        URI uri = base.resolve(key);
        return retry.call(uri + ": HEAD", () -> {
            HttpResponse<Void> response = send(uri, HttpRequest.newBuilder(uri).method("HEAD", HttpRequest.BodyPublishers.noBody()),
                    HttpResponse.BodyHandlers.discarding());
            long size = response.headers().firstValueAsLong("Content-Length")
                    .orElseThrow(() -> new IOException(uri + ": no Content-Length in the answer to HEAD"));
            // A weak ETag (W/"…": Apache's for a file changed in the last second) names the same bytes once strong.
            return new Head(size, response.headers().firstValue("ETag").map(tag -> tag.replaceFirst("^W/", ""))
                    .or(() -> response.headers().firstValue("Last-Modified")).orElse(null));
        });
    }

    @Override
    public byte[] read(String key, ByteRange range) throws IOException {
        return range.length() == 0 ? new byte[0] : get(base.resolve(key), range);
    }

    private byte[] get(URI uri, ByteRange range) throws IOException {
        return retry.call(uri + ": GET" + (range == null ? "" : " " + range.header()), () -> {
            HttpRequest.Builder request = HttpRequest.newBuilder(uri).GET();
            if (range != null) {
                request.header("Range", range.header());
            }
            HttpResponse<byte[]> response = send(uri, request, HttpResponse.BodyHandlers.ofByteArray());
            byte[] body = response.body();
            bytesRead.addAndGet(body.length);
            if (range == null) {
                return body;
            }
            return RangedBody.slice(uri.toString(), range, response.statusCode() == 206, body);
        });
    }

    private <T> HttpResponse<T> send(URI uri, HttpRequest.Builder request, HttpResponse.BodyHandler<T> body) throws IOException {
        requests.incrementAndGet();
        HttpResponse<T> response;
        try {
            response = http.send(request.timeout(Duration.ofSeconds(60)).build(), body);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(uri + ": interrupted");
        } catch (IOException e) {
            // Reset, refused, cut short, timed out: the network's fault.
            throw new Retry.Transient(uri + ": " + e, e);
        }
        int status = response.statusCode();
        if (status == 404) {
            throw new NoSuchFileException(uri.toString(), null, "404 Not Found");
        }
        if (status == 503 || status == 429 || status == 500 || status == 502 || status == 504) {
            throw new Retry.Transient(uri + ": HTTP " + status, null);
        }
        if (status != 200 && status != 206) {
            throw new IOException(uri + ": HTTP " + status);
        }
        return response;
    }

    @Override
    public void put(String key, Path file) throws IOException {
        throw new IOException(base + ": HTTP sources are read-only (expected: a local folder or s3://bucket/prefix)");
    }

    @Override
    public boolean putIfAbsent(String key, byte[] bytes) throws IOException {
        throw new IOException(base + ": HTTP sources are read-only (expected: a local folder or s3://bucket/prefix)");
    }

    @Override
    public void delete(String key) throws IOException {
        throw new IOException(base + ": HTTP sources are read-only");
    }

    @Override
    public Stats stats() {
        return new Stats(requests.get(), retry.retries(), bytesRead.get());
    }

    @Override
    public void close() {
        http.close();
    }
}
