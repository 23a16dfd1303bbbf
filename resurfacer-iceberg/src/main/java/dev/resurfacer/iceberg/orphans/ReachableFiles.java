package dev.resurfacer.iceberg.orphans;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;

/**
 * Walks one table metadata version and hands every file it references to a sink: the current
 * metadata.json and its log, and for every snapshot in the metadata (which covers every branch and
 * tag head and their ancestors) the manifest list, its manifests, the live and existing data and
 * delete files in them, and the statistics and partition-statistics files.
 *
 * <p>Manifests are immutable and shared between snapshots, so each is read once per walker even
 * when the walker is used for two metadata versions.
 */
final class ReachableFiles {
  interface Sink {
    void accept(Category category, String location);
  }

  private final FileIO io;
  private final Set<String> manifestsRead = new HashSet<>();

  ReachableFiles(FileIO io) {
    this.io = io;
  }

  void walk(TableMetadata metadata, Sink sink) {
    if (metadata.metadataFileLocation() != null) {
      sink.accept(Category.METADATA_JSON, metadata.metadataFileLocation());
    }
    for (TableMetadata.MetadataLogEntry entry : metadata.previousFiles()) {
      sink.accept(Category.METADATA_JSON, entry.file());
    }
    for (StatisticsFile stats : metadata.statisticsFiles()) {
      sink.accept(Category.STATISTICS, stats.path());
    }
    for (PartitionStatisticsFile stats : metadata.partitionStatisticsFiles()) {
      sink.accept(Category.PARTITION_STATISTICS, stats.path());
    }
    for (Snapshot snapshot : metadata.snapshots()) {
      if (snapshot.manifestListLocation() != null) {
        sink.accept(Category.MANIFEST_LIST, snapshot.manifestListLocation());
      }
      for (ManifestFile manifest : snapshot.allManifests(io)) {
        sink.accept(Category.MANIFEST, manifest.path());
        if (!manifestsRead.add(manifest.path())) {
          continue;
        }
        Category content = manifest.content() == ManifestContent.DELETES ? Category.DELETE : Category.DATA;
        try (CloseableIterable<String> paths = ManifestFiles.readPaths(manifest, io, metadata.specsById())) {
          for (String path : paths) {
            sink.accept(content, path);
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }
}
