package dev.resurfacer.trino;

import dev.resurfacer.SafetyRefusal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * What Trino's {@code remove_orphan_files} may delete, computed here because Trino cannot preview:
 * every file under the table location older than the cutoff whose <em>file name</em> is not the
 * name of a file the table references. Trino matches by name and lists the table's data and
 * metadata folders (newer releases the whole location); we model the widest of these — the whole
 * location — and the narrowest set of kept names — data and delete files, manifests, manifest lists,
 * metadata files, statistics files and {@code version-hint.text}, but not partition-statistics
 * files — so the set here contains whatever any of those releases would delete.
 */
final class TrinoOrphanRule {
  private TrinoOrphanRule() {}

  /** Locations Trino could delete with a cutoff at {@code cutoffMillis}. */
  static List<String> candidates(Table table, long cutoffMillis) {
    Set<String> kept = keptNames(table);
    List<String> out = new ArrayList<>();
    for (FileInfo f : listing(table)) {
      if (f.createdAtMillis() < cutoffMillis && !kept.contains(name(f.location()))) {
        out.add(f.location());
      }
    }
    out.sort(null);
    return out;
  }

  /** Every file under the table location (folder placeholders, which some S3 servers list, left out). */
  static List<FileInfo> listing(Table table) {
    if (!(table.io() instanceof SupportsPrefixOperations io)) {
      throw new SafetyRefusal(
          "cannot list " + table.location() + " with " + table.io().getClass().getSimpleName()
              + " to check what Trino's remove_orphan_files would delete");
    }
    String prefix = table.location().endsWith("/") ? table.location() : table.location() + "/";
    List<FileInfo> out = new ArrayList<>();
    for (FileInfo f : io.listPrefix(prefix)) {
      if (!f.location().endsWith("/")) {
        out.add(f);
      }
    }
    return out;
  }

  private static Set<String> keptNames(Table table) {
    Set<String> names = new HashSet<>();
    names.add("version-hint.text");
    TableMetadata metadata = ((HasTableOperations) table).operations().current();
    names.add(name(metadata.metadataFileLocation()));
    metadata.previousFiles().forEach(e -> names.add(name(e.file())));
    for (StatisticsFile stats : metadata.statisticsFiles()) {
      names.add(name(stats.path()));
    }
    Set<String> read = new HashSet<>();
    for (Snapshot snapshot : metadata.snapshots()) {
      if (snapshot.manifestListLocation() != null) {
        names.add(name(snapshot.manifestListLocation()));
      }
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        names.add(name(manifest.path()));
        if (!read.add(manifest.path())) {
          continue;
        }
        try (CloseableIterable<String> paths =
            ManifestFiles.readPaths(manifest, table.io(), metadata.specsById())) {
          paths.forEach(p -> names.add(name(p)));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        if (manifest.content() != ManifestContent.DATA
            && manifest.content() != ManifestContent.DELETES) {
          throw new SafetyRefusal("manifest " + manifest.path() + " has content "
              + manifest.content() + " that we do not model for Trino");
        }
      }
    }
    return names;
  }

  static String name(String location) {
    return location.substring(location.lastIndexOf('/') + 1);
  }
}
