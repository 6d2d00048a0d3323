package dev.stoker.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A failing {@code ./stoker} says why in one line on standard error, as a user's shell sees it: here an S3
 * endpoint nobody listens on, where the AWS SDK's logging (SLF4J, no binding) used to print its own three-line
 * warning first.
 */
class LauncherErrorLineTest {

    @BeforeAll
    static void buildAndCache() throws Exception {
        // A stale jar is rebuilt, and a missing startup cache made (saying so on standard error), by the first run:
        // one plain run first, so that the test sees only the command's own lines.
        ProcessRun.run(ProcessRun.root(), env -> { }, Duration.ofMinutes(3), "./stoker", "--version").succeeded();
    }

    @Test
    void anUnreachableS3EndpointIsOneLineNamingTheLocation() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        String location = "s3://stoker-no-such-bucket/shards";

        ProcessRun run = ProcessRun.run(ProcessRun.root(), env -> {
            env.put("AWS_ACCESS_KEY_ID", "stoker");
            env.put("AWS_SECRET_ACCESS_KEY", "stoker-secret");
            env.put("AWS_REGION", "us-east-1");
        }, Duration.ofMinutes(3), "./stoker", "headspace", location, "--s3-endpoint", "http://127.0.0.1:" + closedPort);

        assertThat(run.exitCode()).as(run.err()).isEqualTo(1);
        assertThat(run.err().lines()).as(run.err()).singleElement().asString()
                .startsWith("stoker headspace: " + location).contains("127.0.0.1:" + closedPort);
    }
}
