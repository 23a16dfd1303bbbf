package dev.resurfacer.iceberg.health;

import dev.resurfacer.storage.StoredFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.PropertyUtil;

/** Reads a table's metadata and computes its {@link TableHealth}. Reads only; never writes. */
public final class HealthInspector {
  /** Properties that steer maintenance, shown by {@code describe}. */
  static final List<String> MAINTENANCE_PROPERTY_PREFIXES = List.of(
      "write.target-file-size-bytes",
      "write.delete.",
      "write.update.mode",
      "write.merge.mode",
      "write.distribution-mode",
      "write.data.path",
      "write.metadata.",
      "write.parquet.compression-codec",
      "history.expire.",
      "commit.manifest",
      "gc.enabled",
      "format-version");

  // Bucket edges chosen so the common Iceberg targets (128 MB, 512 MB) fall on an edge.
  private static final long[] EDGES = {
    0, 1L << 20, 8L << 20, 32L << 20, 128L << 20, 512L << 20, Long.MAX_VALUE
  };
  private static final String[] LABELS = {
    "< 1 MB", "1-8 MB", "8-32 MB", "32-128 MB", "128-512 MB", ">= 512 MB"
  };

  private HealthInspector() {}

  public static TableHealth inspect(String name, Table table) {
    return inspect(name, table, System.currentTimeMillis());
  }

  /** As {@link #inspect(String, Table)}, taking each manifest's counts from {@code tallies} when it holds them. */
  public static TableHealth inspect(String name, Table table, ManifestTallies tallies) {
    return inspect(name, table, System.currentTimeMillis(), tallies);
  }

  static TableHealth inspect(String name, Table table, long nowMillis) {
    return inspect(name, table, nowMillis, ManifestTallies.NONE);
  }

  /** One manifest's live entries, counted: see {@link #inspect(String, Table, long, ManifestTallies)} for the layout. */
  private static ManifestTallies.Tally tally(
      ManifestFile manifest, FileIO io, Table table, long smallThreshold) {
    if (manifest.content() == org.apache.iceberg.ManifestContent.DATA) {
      long[] c = new long[4 + 2 * LABELS.length];
      try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, io, table.specs())) {
        for (DataFile f : reader) {
          c[0]++;
          c[1] += f.fileSizeInBytes();
          c[2] += f.recordCount();
          if (f.fileSizeInBytes() < smallThreshold) {
            c[3]++;
          }
          int b = bucket(f.fileSizeInBytes());
          c[4 + 2 * b]++;
          c[5 + 2 * b] += f.fileSizeInBytes();
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return new ManifestTallies.Tally(c);
    }
    long[] c = new long[7];
    try (ManifestReader<DeleteFile> reader =
        ManifestFiles.readDeleteManifest(manifest, io, table.specs())) {
      for (DeleteFile f : reader) {
        c[0] += ContentFileUtil.isDV(f) ? f.contentSizeInBytes() : f.fileSizeInBytes();
        if (f.content() == FileContent.EQUALITY_DELETES) {
          c[1]++;
          c[2] += f.recordCount();
        } else if (ContentFileUtil.isDV(f)) {
          c[3]++;
          c[4] += f.recordCount();
        } else {
          c[5]++;
          c[6] += f.recordCount();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ManifestTallies.Tally(c);
  }

  /**
   * @param tallies per-manifest counts already made (data: files, bytes, records, small, then files
   *     and bytes per size bucket; delete: bytes, equality files and rows, vectors and rows, position files and rows)
   */
  static TableHealth inspect(String name, Table table, long nowMillis, ManifestTallies tallies) {
    TableMetadata meta = ((HasTableOperations) table).operations().current();
    FileIO io = table.io();
    long target = PropertyUtil.propertyAsLong(
        table.properties(),
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    long smallThreshold = (long) (target * 0.75);

    List<String> specs = new ArrayList<>();
    for (PartitionSpec spec : table.specs().values()) {
      specs.add(spec.specId() + ": "
          + (spec.isUnpartitioned() ? "unpartitioned" : spec.fields().toString()));
    }
    List<String> orders = new ArrayList<>();
    for (SortOrder order : table.sortOrders().values()) {
      orders.add(order.orderId() + ": "
          + (order.isUnsorted() ? "unsorted" : order.fields().toString()));
    }
    List<TableHealth.Ref> refs = new ArrayList<>();
    meta.refs()
        .forEach((refName, ref) -> refs.add(new TableHealth.Ref(
            refName, ref.type().name().toLowerCase(java.util.Locale.ROOT), ref.snapshotId())));
    refs.sort(java.util.Comparator.comparing(TableHealth.Ref::name));

    Long oldest = null;
    Long newest = null;
    for (Snapshot s : table.snapshots()) {
      oldest = oldest == null ? s.timestampMillis() : Math.min(oldest, s.timestampMillis());
      newest = newest == null ? s.timestampMillis() : Math.max(newest, s.timestampMillis());
    }

    long[] bucketFiles = new long[LABELS.length];
    long[] bucketBytes = new long[LABELS.length];
    long dataFiles = 0, dataBytes = 0, dataRecords = 0, small = 0;
    long posFiles = 0,
        posRecords = 0,
        dvs = 0,
        dvRecords = 0,
        eqFiles = 0,
        eqRecords = 0,
        deleteBytes = 0;
    long dataManifests = 0, deleteManifests = 0, manifestBytes = 0;
    Snapshot current = table.currentSnapshot();
    if (current != null) {
      for (ManifestFile manifest : current.allManifests(io)) {
        manifestBytes += manifest.length();
        boolean data = manifest.content() == org.apache.iceberg.ManifestContent.DATA;
        if (data) {
          dataManifests++;
        } else {
          deleteManifests++;
        }
        long[] c = tallies
            .get(
                smallThreshold + "@" + manifest.path(),
                () -> tally(manifest, io, table, smallThreshold))
            .counts();
        if (data) {
          dataFiles += c[0];
          dataBytes += c[1];
          dataRecords += c[2];
          small += c[3];
          for (int b = 0; b < LABELS.length; b++) {
            bucketFiles[b] += c[4 + 2 * b];
            bucketBytes[b] += c[5 + 2 * b];
          }
        } else {
          deleteBytes += c[0];
          eqFiles += c[1];
          eqRecords += c[2];
          dvs += c[3];
          dvRecords += c[4];
          posFiles += c[5];
          posRecords += c[6];
        }
      }
    }
    List<TableHealth.SizeBucket> histogram = new ArrayList<>();
    for (int i = 0; i < LABELS.length; i++) {
      histogram.add(new TableHealth.SizeBucket(
          LABELS[i], EDGES[i], EDGES[i + 1], bucketFiles[i], bucketBytes[i]));
    }

    int inLog = meta.previousFiles().size() + 1;
    int onDisk = -1;
    long metadataBytes = -1;
    StoredFile metadataDir = StoredFile.parse(metadataLocation(table));
    if (metadataDir.isLocal()) {
      long[] listed = listLocalMetadata(Path.of(metadataDir.path()), entry -> {});
      onDisk = (int) listed[0];
      metadataBytes = listed[1];
    } else if (io instanceof SupportsPrefixOperations prefixIo) {
      long[] listed = listMetadata(prefixIo, metadataLocation(table));
      onDisk = (int) listed[0];
      metadataBytes = listed[1];
    }

    Map<String, String> props = new TreeMap<>();
    table.properties().forEach((k, v) -> {
      if (MAINTENANCE_PROPERTY_PREFIXES.stream().anyMatch(k::startsWith)) {
        props.put(k, v);
      }
    });

    return new TableHealth(
        name,
        table.location(),
        new TableHealth.Layout(meta.formatVersion(), specs, table.spec().specId(), orders),
        new TableHealth.History(
            refs,
            meta.snapshots().size(),
            current == null ? null : current.snapshotId(),
            oldest == null ? null : nowMillis - oldest,
            newest == null ? null : nowMillis - newest),
        new TableHealth.DataFiles(
            dataFiles,
            dataBytes,
            dataRecords,
            dataFiles == 0 ? 0 : dataBytes / dataFiles,
            target,
            small,
            histogram),
        new TableHealth.Deletes(
            posFiles + dvs + eqFiles,
            deleteBytes,
            posFiles,
            posRecords,
            dvs,
            dvRecords,
            eqFiles,
            eqRecords),
        new TableHealth.Manifests(
            dataManifests + deleteManifests, dataManifests, deleteManifests, manifestBytes),
        new TableHealth.Metadata(inLog, onDisk, metadataBytes),
        props,
        statistics(table, current == null ? null : current.snapshotId()));
  }

  private static List<TableHealth.Statistics> statistics(Table table, Long currentSnapshotId) {
    List<TableHealth.Statistics> out = new ArrayList<>();
    for (org.apache.iceberg.StatisticsFile f : table.statisticsFiles()) {
      List<String> blobs = f.blobMetadata().stream()
          .map(b -> b.type() + " " + b.fields()
              + (b.properties().isEmpty() ? "" : " " + new TreeMap<>(b.properties())))
          .toList();
      out.add(statisticsFile(
          "table", f.snapshotId(), f.path(), f.fileSizeInBytes(), blobs, currentSnapshotId));
    }
    for (org.apache.iceberg.PartitionStatisticsFile f : table.partitionStatisticsFiles()) {
      out.add(statisticsFile(
          "partition",
          f.snapshotId(),
          f.path(),
          f.fileSizeInBytes(),
          List.of(),
          currentSnapshotId));
    }
    return out;
  }

  /** One statistics file of {@code kind}, current when it describes the current snapshot. */
  private static TableHealth.Statistics statisticsFile(
      String kind,
      long snapshotId,
      String path,
      long bytes,
      List<String> blobs,
      Long currentSnapshotId) {
    return new TableHealth.Statistics(
        kind, snapshotId, Long.valueOf(snapshotId).equals(currentSnapshotId), path, bytes, blobs);
  }

  /** Where the table writes metadata: {@code write.metadata.path}, else {@code <location>/metadata}. */
  public static String metadataLocation(Table table) {
    String configured = table.properties().get(TableProperties.WRITE_METADATA_LOCATION);
    return configured != null ? stripSlash(configured) : stripSlash(table.location()) + "/metadata";
  }

  private static String stripSlash(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  private static final int LISTING_ATTEMPTS = 3;

  /**
   * As {@link #listMetadata} for a local directory, walked with java.nio: Hadoop's local listing
   * forks {@code ls -ld} per file to read permissions (no native Hadoop library here), and a
   * streaming table's metadata directory holds several files per commit while {@code serve}
   * measures it before and after every run. A file a concurrent commit's cleanup deletes between
   * the directory read and its attributes is simply not counted. {@code onEntry} sees each counted
   * file (tests delete files there).
   */
  static long[] listLocalMetadata(Path dir, Consumer<Path> onEntry) {
    long[] counted = new long[2];
    try {
      Files.walkFileTree(
          dir,
          EnumSet.of(FileVisitOption.FOLLOW_LINKS),
          Integer.MAX_VALUE,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
              if (!attrs.isRegularFile()) {
                return FileVisitResult.CONTINUE;
              }
              String name = file.getFileName().toString();
              if (name.startsWith(".") && name.endsWith(".crc")) {
                return FileVisitResult
                    .CONTINUE; // Hadoop's checksum sidecars, hidden by its listing too
              }
              onEntry.accept(file);
              counted[1] += attrs.size();
              if (name.endsWith(".metadata.json") || name.endsWith(".metadata.json.gz")) {
                counted[0]++;
              }
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
              if (e instanceof NoSuchFileException || e instanceof FileSystemLoopException) {
                return FileVisitResult.CONTINUE;
              }
              throw e;
            }
          });
    } catch (NoSuchFileException e) {
      return new long[] {0, 0}; // no metadata directory (yet)
    } catch (IOException e) {
      return new long[] {-1, -1};
    }
    return counted;
  }

  /**
   * Metadata JSON files and bytes under the metadata directory, or -1s when no listing completes. A
   * concurrent commit's cleanup deletes the manifest lists and manifests of its failed attempts
   * while we list; Hadoop's local file system then fails on the vanished file (it reads each file's
   * permissions after listing it). That is a measurement race, not a table fault: list again, and
   * if it keeps happening say "unknown" rather than fail the whole table.
   */
  private static long[] listMetadata(SupportsPrefixOperations io, String location) {
    for (int attempt = 1; ; attempt++) {
      long files = 0;
      long bytes = 0;
      try {
        for (FileInfo info : io.listPrefix(location)) {
          bytes += info.size();
          if (info.location().endsWith(".metadata.json")
              || info.location().endsWith(".metadata.json.gz")) {
            files++;
          }
        }
        return new long[] {files, bytes};
      } catch (RuntimeException e) {
        if (isMissing(e) && !mentionsVanishedFile(e)) {
          return new long[] {files, bytes}; // no metadata directory (yet)
        }
        if (!mentionsVanishedFile(e)) {
          throw e;
        }
        if (attempt == LISTING_ATTEMPTS) {
          return new long[] {-1, -1};
        }
      }
    }
  }

  private static boolean mentionsVanishedFile(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getMessage() != null && t.getMessage().contains("No such file or directory")) {
        return true;
      }
    }
    return false;
  }

  private static boolean isMissing(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.io.FileNotFoundException
          || t instanceof org.apache.iceberg.exceptions.NotFoundException) {
        return true;
      }
    }
    return false;
  }

  private static int bucket(long size) {
    for (int i = 0; i < LABELS.length; i++) {
      if (size < EDGES[i + 1]) {
        return i;
      }
    }
    return LABELS.length - 1;
  }
}
