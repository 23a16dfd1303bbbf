package dev.resurfacer.iceberg.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/** What is really on the local file system under a table, and what a snapshot really references. */
public final class Disk {
  private Disk() {}

  public static Path path(String location) {
    return location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
  }

  public static boolean exists(String location) {
    return Files.exists(path(location));
  }

  /** Every regular file under the table's location, as absolute paths. */
  public static Set<Path> files(Table table) {
    try (Stream<Path> walk = Files.walk(path(table.location()))) {
      Set<Path> out = new TreeSet<>();
      walk.filter(Files::isRegularFile).forEach(p -> out.add(p.toAbsolutePath()));
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The manifest list, manifests and live data and delete files of one snapshot. */
  public static Set<String> reachableFrom(Table table, Snapshot snapshot) {
    Set<String> out = new TreeSet<>();
    out.add(snapshot.manifestListLocation());
    for (ManifestFile m : snapshot.allManifests(table.io())) {
      out.add(m.path());
      try (ManifestReader<? extends ContentFile<?>> reader = m.content() == ManifestContent.DATA
          ? ManifestFiles.read(m, table.io(), table.specs())
          : ManifestFiles.readDeleteManifest(m, table.io(), table.specs())) {
        for (ContentFile<?> f : reader) {
          out.add(f.location());
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }
}
