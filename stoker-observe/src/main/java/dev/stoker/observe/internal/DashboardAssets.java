package dev.stoker.observe.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * The dashboard's files on the classpath: the page, its script and styles under
 * {@code dev/stoker/observe/dashboard/}, and Chart.js from its WebJar ({@code org.webjars.npm:chart.js}).
 */
public final class DashboardAssets {
    public static final String PAGE = "index.html";
    public static final String SCRIPT = "dashboard.js";
    public static final String STYLES = "dashboard.css";
    public static final String CHART_JS = "vendor/chart.umd.min.js";

    private static final String DIR = "dev/stoker/observe/dashboard/";
    private static final String WEBJAR_POM = "META-INF/maven/org.webjars.npm/chart.js/pom.properties";

    private DashboardAssets() { }

    /** One of {@link #PAGE}, {@link #SCRIPT}, {@link #STYLES} or {@link #CHART_JS}. */
    static byte[] bytes(String name) {
        String resource = name.equals(CHART_JS)
                ? "META-INF/resources/webjars/chart.js/" + chartJsVersion() + "/dist/chart.umd.min.js"
                : DIR + name;
        try (InputStream in = DashboardAssets.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("dashboard: " + resource + " is not on the classpath (a broken build?)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("dashboard: cannot read " + resource, e);
        }
    }

    public static String text(String name) {
        return new String(bytes(name), StandardCharsets.UTF_8);
    }

    static String contentType(String name) {
        if (name.endsWith(".html")) {
            return "text/html; charset=utf-8";
        }
        if (name.endsWith(".js")) {
            return "text/javascript; charset=utf-8";
        }
        return name.endsWith(".css") ? "text/css; charset=utf-8" : "application/octet-stream";
    }

    /** The Chart.js WebJar's version, from its Maven metadata (the parent pom pins it). */
    public static String chartJsVersion() {
        try (InputStream in = DashboardAssets.class.getClassLoader().getResourceAsStream(WEBJAR_POM)) {
            if (in == null) {
                throw new IllegalStateException("dashboard: the Chart.js WebJar is not on the classpath (" + WEBJAR_POM + ")");
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException("dashboard: cannot read " + WEBJAR_POM, e);
        }
    }
}
