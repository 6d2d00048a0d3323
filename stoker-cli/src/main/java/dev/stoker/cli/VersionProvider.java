package dev.stoker.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** {@code stoker --version}: the project version that Maven filtered into {@code version.properties}, and the JVM. */
final class VersionProvider implements IVersionProvider {
    static final String RESOURCE = "version.properties";

    @Override
    public String[] getVersion() {
        return new String[] {
                "stoker " + version(),
                "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + "), "
                        + System.getProperty("os.name") + " " + System.getProperty("os.arch"),
        };
    }

    /** The project version, e.g. {@code 0.1.0-SNAPSHOT}. */
    static String version() {
        try (InputStream in = VersionProvider.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return "unknown (no " + RESOURCE + " next to " + VersionProvider.class.getName() + ")";
            }
            Properties properties = new Properties();
            properties.load(in);
            String version = properties.getProperty("version", "");
            return version.isBlank() || version.contains("${") ? "unknown (" + RESOURCE + " was not filtered by Maven)" : version;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE + ": " + e.getMessage(), e);
        }
    }
}
