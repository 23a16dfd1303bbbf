package dev.resurfacer.iceberg.metadata;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;

/**
 * The one walk over the files Iceberg metadata references, shared by orphan removal (everything a
 * metadata version reaches), expiry (what expiring and retained snapshots reach) and the spelling check:
 * a metadata version's metadata.json and its log, statistics and partition-statistics files, and for each
 * snapshot its manifest list, its manifests and the live data and delete files in them (a deletion
 * vector's Puffin file included).
 *
 * <p>Manifests are immutable and shared between snapshots, so a walker reads each manifest's entries
 * once, however many snapshots or metadata versions it walks name it.
 */
public final class MetadataWalker {
  public enum Kind {
    METADATA_JSON,
    MANIFEST_LIST,
    MANIFEST,
    DATA,
    DELETE,
    STATISTICS,
    PARTITION_STATISTICS
  }

  public interface Sink {
    /** A referenced file; {@code sizeInBytes} is -1 where the walk does not know it (a paths-only walk, a manifest list). */
    void file(Kind kind, String location, long sizeInBytes);

    /** A manifest, each time a snapshot names it; false skips its entries. By default a {@link Kind#MANIFEST} file whose entries are read. */
    default boolean manifest(ManifestFile manifest) {
      file(Kind.MANIFEST, manifest.path(), manifest.length());
      return true;
    }
  }

  private final FileIO io;
  private final boolean sizes;
  private final Set<String> manifestsRead = new HashSet<>();

  private MetadataWalker(FileIO io, boolean sizes) {
    this.io = io;
    this.sizes = sizes;
  }

  /** Entries read by their path column only (a projection): cheapest, sizes -1. */
  public static MetadataWalker pathsOnly(FileIO io) {
    return new MetadataWalker(io, false);
  }

  /** Entries read whole, with their sizes. */
  public static MetadataWalker withSizes(FileIO io) {
    return new MetadataWalker(io, true);
  }

  /** Everything {@code metadata} references (every snapshot in it covers every branch and tag head and their ancestors). */
  public void walk(TableMetadata metadata, Sink sink) {
    if (metadata.metadataFileLocation() != null) {
      sink.file(Kind.METADATA_JSON, metadata.metadataFileLocation(), -1);
    }
    for (TableMetadata.MetadataLogEntry entry : metadata.previousFiles()) {
      sink.file(Kind.METADATA_JSON, entry.file(), -1);
    }
    for (StatisticsFile stats : metadata.statisticsFiles()) {
      sink.file(Kind.STATISTICS, stats.path(), stats.fileSizeInBytes());
    }
    for (PartitionStatisticsFile stats : metadata.partitionStatisticsFiles()) {
      sink.file(Kind.PARTITION_STATISTICS, stats.path(), stats.fileSizeInBytes());
    }
    walkSnapshots(metadata.snapshots(), metadata.specsById(), sink);
  }

  /** The manifest lists, manifests and live entries of {@code snapshots}, in order. */
  public void walkSnapshots(
      Iterable<Snapshot> snapshots, Map<Integer, PartitionSpec> specs, Sink sink) {
    for (Snapshot snapshot : snapshots) {
      if (snapshot.manifestListLocation() != null) {
        sink.file(Kind.MANIFEST_LIST, snapshot.manifestListLocation(), -1);
      }
      for (ManifestFile manifest : snapshot.allManifests(io)) {
        if (sink.manifest(manifest) && manifestsRead.add(manifest.path())) {
          entries(manifest, specs, sink);
        }
      }
    }
  }

  private void entries(ManifestFile manifest, Map<Integer, PartitionSpec> specs, Sink sink) {
    Kind kind = manifest.content() == ManifestContent.DELETES ? Kind.DELETE : Kind.DATA;
    if (!sizes) {
      try (CloseableIterable<String> paths = ManifestFiles.readPaths(manifest, io, specs)) {
        for (String path : paths) {
          sink.file(kind, path, -1);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return;
    }
    try (ManifestReader<? extends ContentFile<?>> reader = kind == Kind.DATA
        ? ManifestFiles.read(manifest, io, specs)
        : ManifestFiles.readDeleteManifest(manifest, io, specs)) {
      for (ContentFile<?> f : reader) {
        sink.file(kind, f.location(), f.fileSizeInBytes());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
