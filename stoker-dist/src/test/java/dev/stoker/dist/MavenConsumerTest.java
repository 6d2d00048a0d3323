package dev.stoker.dist;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stoker.video.demo.DemoDataset;
import dev.stoker.video.demo.DemoSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A Java user's project, apart from this build: the README's {@code mvn install} command installs Stoker, its Maven
 * coordinates (its xml block) go into the project's pom, its Java example (its java block) is the project's source,
 * and the example runs on a demo dataset. Stoker is installed into a private local repository under
 * stoker-dist/target, never ~/.m2 (which every checkout on a machine shares); third-party artifacts are read from the
 * user's repository as from a remote one (releases only), then from Maven Central.
 */
class MavenConsumerTest {
    static final Duration BUILD_TIMEOUT = Duration.ofMinutes(8);
    static final Pattern PUBLIC_CLASS = Pattern.compile("public (?:final )?class (\\w+)");

    @Test
    void theReadmesJavaExampleBuildsAgainstTheInstalledArtifactsAndRuns() throws Exception {
        Path root = ProcessRun.root();
        FencedBlocks readme = FencedBlocks.read(root.resolve("README.md"));
        Path work = fresh(root.resolve("stoker-dist/target/consumer"));
        Path repository = work.resolve("m2");
        Path settings = Files.writeString(work.resolve("settings.xml"), settings());

        // Installed as the README says, into the private repository.
        List<String> install = new ArrayList<>(List.of(readme.lineStartingWith("mvn install").split("\\s+")));
        install.addAll(List.of("-B", "-q", "-s", settings.toString(), "-Dmaven.repo.local=" + repository));
        ProcessRun.run(root, env -> env.remove("MAVEN_CONFIG"), BUILD_TIMEOUT, install.toArray(String[]::new)).succeeded();
        assertThat(repository.resolve("dev/stoker/stoker-bom/" + ProcessRun.version())).isDirectory();
        assertThat(repository.resolve("dev/stoker/stoker-video/" + ProcessRun.version())).isDirectory();

        // The project: the README's coordinates, the README's class.
        Path project = Files.createDirectories(work.resolve("project"));
        String java = readme.only("java").text();
        Matcher name = PUBLIC_CLASS.matcher(java);
        assertThat(name.find()).as("a public class in the README's java block").isTrue();
        Files.writeString(project.resolve("pom.xml"), pom(readme.only("xml").text()));
        Path source = Files.createDirectories(project.resolve("src/main/java")).resolve(name.group(1) + ".java");
        Files.writeString(source, java);
        Path classpath = work.resolve("classpath.txt");
        mvn(project, settings, repository, "compile",
                "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath", "-Dmdep.outputFile=" + classpath);

        Path data = DemoDataset.create(work.resolve("demo"), DemoSpec.small(2, 3, 2.0));
        ProcessRun run = ProcessRun.run(project, env -> { }, Duration.ofMinutes(3),
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "--enable-native-access=ALL-UNNAMED",
                "-cp", project.resolve("target/classes") + ":" + Files.readString(classpath).strip(), name.group(1),
                data.toString()).succeeded();
        // One epoch of 6 videos in batches of 8: one batch of 6 clips, its labels the two classes.
        assertThat(run.out()).contains("6 clips", "[6, 16, 112, 112, 3]");
        assertThat(Files.readString(classpath)).as("the installed jars, not this build's")
                .contains(repository.resolve("dev/stoker/stoker-video").toString())
                .doesNotContain(root.resolve("stoker-video/target").toString());
    }

    @Test
    void theBomHasTheVersionOfTheBuild() throws IOException {
        String bom = Files.readString(ProcessRun.root().resolve("stoker-bom/pom.xml"));
        assertThat(bom).as("stoker-bom/pom.xml has no parent: its version is written out")
                .contains("<version>" + ProcessRun.version() + "</version>");
    }

    private static void mvn(Path dir, Path settings, Path repository, String... goals)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("mvn", "-B", "-q", "-s", settings.toString(),
                "-Dmaven.repo.local=" + repository));
        command.addAll(List.of(goals));
        ProcessRun.run(dir, env -> env.remove("MAVEN_CONFIG"), BUILD_TIMEOUT, command.toArray(String[]::new)).succeeded();
    }

    /** The user's repository as a read-only remote one, for releases: Stoker's snapshots come only from install. */
    private static String settings() {
        String userRepository = Path.of(System.getProperty("user.home"), ".m2", "repository").toUri().toString();
        String repository = """
                <%1$s><id>user-repository</id><url>%2$s</url>
                  <releases><enabled>true</enabled></releases><snapshots><enabled>false</enabled></snapshots></%1$s>""";
        return """
                <settings>
                  <profiles><profile><id>user-repository</id>
                    <repositories>%s</repositories>
                    <pluginRepositories>%s</pluginRepositories>
                  </profile></profiles>
                  <activeProfiles><activeProfile>user-repository</activeProfile></activeProfiles>
                </settings>
                """.formatted(repository.formatted("repository", userRepository),
                repository.formatted("pluginRepository", userRepository));
    }

    /** A plain project around the README's dependency sections; plugin versions pinned as this build pins them. */
    private static String pom(String coordinates) {
        return """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>example</groupId>
                  <artifactId>stoker-consumer</artifactId>
                  <version>1</version>
                  <properties>
                    <maven.compiler.release>25</maven.compiler.release>
                    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
                  </properties>
                %s
                  <build><plugins>
                    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.14.0</version></plugin>
                    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
                  </plugins></build>
                </project>
                """.formatted(coordinates.indent(2));
    }

    private static Path fresh(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        return Files.createDirectories(dir);
    }
}
