// Copies a jar leaving out the entries whose names start with any of the given prefixes (bin/make-bundle trims
// FFmpeg's natives with it). Run with the JDK's source launcher: java TrimJar.java IN OUT PREFIX...
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

public class TrimJar {
    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: java TrimJar.java IN.jar OUT.jar PREFIX...");
            System.exit(2);
        }
        List<String> drop = Arrays.asList(args).subList(2, args.length);
        int kept = 0, dropped = 0;
        try (InputStream in = Files.newInputStream(Path.of(args[0]));
             ZipInputStream zin = new ZipInputStream(in);
             OutputStream out = Files.newOutputStream(Path.of(args[1]));
             ZipOutputStream zout = new ZipOutputStream(out)) {
            zout.setLevel(9);
            for (ZipEntry e = zin.getNextEntry(); e != null; e = zin.getNextEntry()) {
                String name = e.getName();
                if (drop.stream().anyMatch(name::startsWith)) {
                    dropped++;
                    continue;
                }
                ZipEntry copy = new ZipEntry(name);
                copy.setTime(e.getTime());
                zout.putNextEntry(copy);
                zin.transferTo(zout);
                zout.closeEntry();
                kept++;
            }
        }
        if (dropped == 0) {
            System.err.println("TrimJar: nothing in " + args[0] + " matched " + drop + " (did the jar's layout change?)");
            System.exit(1);
        }
        System.err.println("TrimJar: " + args[1] + ": kept " + kept + " entries, left out " + dropped);
    }
}
