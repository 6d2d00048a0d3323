package dev.stoker.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The module boundaries, checked on the compiled main classes of every module on this module's class path
 * (stoker-cli depends on all the others): no class reaches into another module's {@code .internal} packages,
 * dependencies point the way the poms say and no other, and the modules that promise no native code use none.
 * The modules are the rows of {@link #MODULES}; a new module is one more row (its pom is checked against it).
 */
class ArchitectureTest {

    /**
     * One module: its artifact, the package its classes live under, the modules its pom depends on, and
     * whether it may use native code (bytedeco's FFmpeg and JavaCPP).
     */
    record Module(String artifact, String rootPackage, List<String> dependsOn, boolean nativeCode) {
        String packages() {
            return rootPackage + "..";
        }

        String internalPackages() {
            return rootPackage + "..internal..";
        }
    }

    private static final String PIPELINE = "stoker-pipeline";
    private static final String LOADER = "stoker-loader";
    private static final String VIDEO = "stoker-video";

    /** Every module, in build order; a module may depend only on modules above it. */
    static final List<Module> MODULES = List.of(
            new Module(PIPELINE, "dev.stoker.pipeline", List.of(), false),
            // The loader contract (ClipLoader, the options document, MemoryPlan, datasets, samplers, batches, Loaders.open):
            // what every loader keeps and every consumer takes, without FFmpeg; the loaders register behind it.
            new Module(LOADER, "dev.stoker.loader", List.of(PIPELINE), false),
            new Module(VIDEO, "dev.stoker.video", List.of(PIPELINE, LOADER), true),
            new Module("stoker-store", "dev.stoker.store", List.of(PIPELINE, LOADER, VIDEO), true),
            new Module("stoker-gpu", "dev.stoker.gpu", List.of(PIPELINE, LOADER, VIDEO), true),
            new Module("stoker-tune", "dev.stoker.tune", List.of(PIPELINE, LOADER, VIDEO), true),
            // Measurement over any ClipLoader: below the commands (only stoker-cli and the outer modules use it),
            // above what it measures (the GPU micro-benchmarks too). Decoding it times goes through stoker-video's
            // and stoker-gpu's API, never FFmpeg itself.
            new Module("stoker-bench", "dev.stoker.bench", List.of(PIPELINE, LOADER, VIDEO, "stoker-store",
                    "stoker-tune", "stoker-gpu"), false),
            // Seeing a run (the stats stream, the terminal view, the dashboard, the HTML reports): on the engine's
            // public API alone, so that whatever runs a pipeline can publish it; only consumers and commands use it.
            new Module("stoker-observe", "dev.stoker.observe", List.of(PIPELINE), false),
            new Module("stoker-serve", "dev.stoker.serve", List.of(PIPELINE, LOADER, VIDEO, "stoker-store", "stoker-gpu",
                    "stoker-observe"), true),
            // Not on this class path (stoker train loads it in a class loader of its own, from its
            // target/ jars): only its pom is checked here. Native code: libtorch through DJL's JNI.
            new Module("stoker-djl", "dev.stoker.djl", List.of(PIPELINE, LOADER, VIDEO, "stoker-store", "stoker-tune"), true),
            new Module("stoker-cli", "dev.stoker.cli",
                    List.of(PIPELINE, LOADER, VIDEO, "stoker-store", "stoker-tune", "stoker-bench", "stoker-observe", "stoker-gpu",
                            "stoker-serve"), true),
            // Not on this class path (nothing depends on it; Spark is provided by the cluster): only its pom is checked.
            new Module("stoker-spark", "dev.stoker.spark", List.of(PIPELINE, LOADER, VIDEO, "stoker-store"), true),
            // Not on this class path (nothing depends on the benchmarks): only its pom is checked here.
            new Module("stoker-jmh", "dev.stoker.jmh", List.of(PIPELINE, LOADER), false),
            // Tests only, not on this class path either: they run the packaged launcher and bundle as processes.
            new Module("stoker-dist", "dev.stoker.dist", List.of("stoker-cli"), true),
            // No code: the versions of the library modules, for projects that depend on them (its dependencyManagement
            // names them, which this test reads as depending on them).
            new Module("stoker-bom", "dev.stoker.bom", List.of(PIPELINE, LOADER, VIDEO, "stoker-store", "stoker-gpu", "stoker-tune",
                    "stoker-bench", "stoker-observe", "stoker-serve", "stoker-djl", "stoker-spark"), false));

    /**
     * Whose {@code .internal} packages a module shares, and with which modules (like a module-info's qualified
     * {@code exports ... to}): {@code .internal} is what Stoker promises its users nothing about, and most of it is
     * used only inside its module; these are the exceptions, each named. The user's private folders (the block cache's,
     * the serve session's shared memory) go to the modules that make them; the loader kit (the front every loader
     * builds on, the samplers' draws) goes to the loaders and the measurement; FFmpeg's plumbing and the frame writer
     * to the other native modules; the commands' engines (benchmarks, tuner trials, reports, the serve session, the
     * dashboard) to the commands.
     */
    static final java.util.Map<String, List<String>> INTERNALS_SHARED_WITH = java.util.Map.of(
            PIPELINE, List.of("stoker-store", "stoker-serve"),
            LOADER, List.of(VIDEO, "stoker-store", "stoker-gpu", "stoker-bench"),
            VIDEO, List.of("stoker-store", "stoker-gpu", "stoker-cli"),
            "stoker-store", List.of("stoker-bench", "stoker-cli"),
            "stoker-tune", List.of("stoker-bench", "stoker-cli"),
            "stoker-bench", List.of("stoker-cli"),
            "stoker-observe", List.of("stoker-cli"),
            "stoker-serve", List.of("stoker-cli"));

    private static final Pattern MODULE_LINE = Pattern.compile("<module>([^<]+)</module>");
    private static final Pattern STOKER_DEPENDENCY = Pattern.compile(
            "<dependency>\\s*<groupId>dev\\.stoker</groupId>\\s*<artifactId>([^<]+)</artifactId>(.*?)</dependency>",
            Pattern.DOTALL);

    private static JavaClasses classes;
    private static Path root;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.stoker");
        root = projectRoot();
    }

    @Test
    void everyModuleOfTheBuildHasARowAndItsPomDependsOnWhatTheRowSays() throws IOException {
        Set<String> built = new TreeSet<>(matches(MODULE_LINE, Files.readString(root.resolve("pom.xml"))));
        assertThat(MODULES).extracting(Module::artifact)
                .as("the modules of the root pom (add a row to ArchitectureTest.MODULES for a new one)")
                .containsExactlyInAnyOrderElementsOf(built);
        for (int i = 0; i < MODULES.size(); i++) {
            Module m = MODULES.get(i);
            List<String> above = MODULES.subList(0, i).stream().map(Module::artifact).toList();
            assertThat(above).as("%s depends only on modules above it in MODULES", m.artifact())
                    .containsAll(m.dependsOn());
            assertThat(pomDependencies(m, false)).as("the stoker dependencies in %s/pom.xml", m.artifact())
                    .containsExactlyInAnyOrderElementsOf(m.dependsOn());
            // Test fixtures (a module's test-jar) only from a module this one already depends on: inward.
            assertThat(m.dependsOn()).as("the stoker test-jars in %s/pom.xml", m.artifact())
                    .containsAll(pomDependencies(m, true));
        }
    }

    @Test
    void everyModuleThisOneDependsOnIsImported() {
        Module cli = module("stoker-cli");
        for (String artifact : cli.dependsOn()) {
            String pkg = module(artifact).rootPackage();
            assertThat(classes.stream().anyMatch(c -> c.getPackageName().startsWith(pkg)))
                    .as("main classes of %s (%s) on the class path, so that the rules below see them", artifact, pkg)
                    .isTrue();
        }
    }

    @TestFactory
    Stream<DynamicTest> noModuleReachesIntoAnotherModulesInternals() {
        return MODULES.stream().map(m -> {
            List<String> sharedWith = INTERNALS_SHARED_WITH.getOrDefault(m.artifact(), List.of());
            String[] allowed = Stream.concat(Stream.of(m), sharedWith.stream().map(ArchitectureTest::module))
                    .map(Module::packages).toArray(String[]::new);
            return DynamicTest.dynamicTest(m.artifact() + ": internals used only inside"
                    + (sharedWith.isEmpty() ? "" : " and by " + sharedWith), () ->
                    noClasses().that().resideOutsideOfPackages(allowed)
                            .should().dependOnClassesThat().resideInAPackage(m.internalPackages())
                            .because(m.artifact() + "'s .internal packages are its engine room, not its API")
                            .allowEmptyShould(true)
                            .check(classes));
        });
    }

    @TestFactory
    Stream<DynamicTest> dependenciesPointOneWay() {
        return MODULES.stream().map(m -> DynamicTest.dynamicTest(m.artifact() + " depends only on " + m.dependsOn(), () -> {
            String[] forbidden = MODULES.stream()
                    .filter(other -> !other.equals(m) && !m.dependsOn().contains(other.artifact()))
                    .map(Module::packages)
                    .toArray(String[]::new);
            if (forbidden.length == 0) {
                return;
            }
            noClasses().that().resideInAPackage(m.packages())
                    .should().dependOnClassesThat().resideInAnyPackage(forbidden)
                    .because(m.artifact() + "'s pom depends on " + m.dependsOn() + " only")
                    .allowEmptyShould(true)
                    .check(classes);
        }));
    }

    @TestFactory
    Stream<DynamicTest> modulesWithoutNativeCodeUseNone() {
        return MODULES.stream().filter(m -> !m.nativeCode()).map(m -> DynamicTest.dynamicTest(m.artifact() + ": no native code", () ->
                noClasses().that().resideInAPackage(m.packages())
                        .should().dependOnClassesThat().resideInAPackage("org.bytedeco..")
                        .because("a reader of " + m.artifact() + " never sees FFmpeg")
                        .allowEmptyShould(true)   // stoker-bom has no classes
                        .check(classes)));
    }

    private static Module module(String artifact) {
        return MODULES.stream().filter(m -> m.artifact().equals(artifact)).findFirst()
                .orElseThrow(() -> new AssertionError("no row for " + artifact + " in ArchitectureTest.MODULES"));
    }

    /** The stoker modules {@code m}'s pom depends on: their main jars, or ({@code testJars}) their test-jars. */
    private static List<String> pomDependencies(Module m, boolean testJars) throws IOException {
        String pom = Files.readString(root.resolve(m.artifact()).resolve("pom.xml")).replaceAll("(?s)<!--.*?-->", "");
        List<String> found = new ArrayList<>();
        Matcher dependency = STOKER_DEPENDENCY.matcher(pom);
        while (dependency.find()) {
            boolean testJar = dependency.group(2).contains("<type>test-jar</type>");
            if (testJar == testJars && !dependency.group(1).equals(m.artifact())) {
                found.add(dependency.group(1));
            }
        }
        return found;
    }

    private static List<String> matches(Pattern pattern, String text) {
        List<String> found = new ArrayList<>();
        Matcher matcher = pattern.matcher(text);
        while (matcher.find()) {
            found.add(matcher.group(1).trim());
        }
        return found;
    }

    /** The build's root: the nearest folder up from here whose pom lists modules. */
    private static Path projectRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path pom = dir.resolve("pom.xml");
            try {
                if (Files.isRegularFile(pom) && Files.readString(pom).contains("<modules>")) {
                    return dir;
                }
            } catch (IOException e) {
                throw new AssertionError("cannot read " + pom + ": " + e, e);
            }
        }
        throw new AssertionError("no parent pom with <modules> above " + Path.of("").toAbsolutePath());
    }
}
