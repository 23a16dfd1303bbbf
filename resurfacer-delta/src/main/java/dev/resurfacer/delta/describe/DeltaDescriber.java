package dev.resurfacer.delta.describe;

import dev.resurfacer.delta.compact.CompactionDefaults;
import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.log.DeltaLogFiles;
import dev.resurfacer.delta.log.LogFile;
import dev.resurfacer.delta.log.Retention;
import dev.resurfacer.delta.log.Tombstone;
import dev.resurfacer.delta.log.Tombstones;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import io.delta.kernel.Snapshot;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Measures a Delta table from its log and file list; reads no data files. */
public final class DeltaDescriber {
  private static final long[] EDGES = {
    0, 1L << 20, 8L << 20, 32L << 20, 128L << 20, 512L << 20, Long.MAX_VALUE
  };
  private static final String[] LABELS = {
    "< 1 MB", "1-8 MB", "8-32 MB", "32-128 MB", "128-512 MB", ">= 512 MB"
  };

  private DeltaDescriber() {}

  public static DeltaHealth describe(DeltaTable table, Clock clock) {
    long now = clock.millis();
    Snapshot snapshot = table.latest();
    Map<String, String> props = snapshot.getTableProperties();
    List<LiveFile> files = LiveFiles.of(table, snapshot);
    long target = CompactionDefaults.targetFileSize(props);
    long[] bucketFiles = new long[LABELS.length];
    long[] bucketBytes = new long[LABELS.length];
    long bytes = 0, small = 0, dvFiles = 0, deleted = 0, records = 0;
    boolean recordsKnown = true;
    for (LiveFile f : files) {
      bytes += f.size();
      if (f.size() < target * 3 / 4) {
        small++;
      }
      for (int i = 0; i < LABELS.length; i++) {
        if (f.size() >= EDGES[i] && f.size() < EDGES[i + 1]) {
          bucketFiles[i]++;
          bucketBytes[i] += f.size();
        }
      }
      if (f.deletionVector().isPresent()) {
        dvFiles++;
        deleted += f.deletedRows();
      }
      if (f.numRecords().isPresent()) {
        records += f.numRecords().getAsLong();
      } else {
        recordsKnown = false;
      }
    }
    List<DeltaHealth.SizeBucket> histogram = new ArrayList<>();
    for (int i = 0; i < LABELS.length; i++) {
      histogram.add(new DeltaHealth.SizeBucket(
          LABELS[i], EDGES[i], EDGES[i + 1], bucketFiles[i], bucketBytes[i]));
    }

    DeltaLogFiles log = DeltaLogFiles.list(table);
    List<LogFile> commits = log.of(LogFile.Kind.COMMIT).stream()
        .filter(c -> c.version() <= snapshot.getVersion())
        .toList();
    Duration fileRetention = Retention.deletedFileRetention(props);
    List<Tombstone> tombstones = Tombstones.read(table, commits);
    long cutoff = now - fileRetention.toMillis();
    long inRetention =
        tombstones.stream().filter(t -> t.deletionTimestamp() >= cutoff).count();
    var checkpoint = log.latestCheckpoint(snapshot.getVersion());
    long commitsSince = commits.stream()
        .filter(c -> checkpoint.isEmpty() || c.version() > checkpoint.get().version())
        .count();

    KernelInternals.TableProtocol p = KernelInternals.protocol(snapshot);
    Duration logRetention = Retention.logRetention(props);
    DeltaHealth.Retention retention = new DeltaHealth.Retention(
        props.getOrDefault(Retention.DELETED_FILE_RETENTION, "interval 7 days (default)"),
        fileRetention.toMillis(),
        props.getOrDefault(Retention.LOG_RETENTION, "interval 30 days (default)"),
        logRetention.toMillis(),
        props.getOrDefault("delta.checkpointInterval", "10 (default)"),
        props.containsKey(Retention.DELETED_FILE_RETENTION)
            || props.containsKey(Retention.LOG_RETENTION));
    return new DeltaHealth(
        table.name(),
        table.uri(),
        "delta",
        snapshot.getVersion(),
        Math.max(0, now - snapshot.getTimestamp(table.engine())),
        new DeltaHealth.Protocol(
            p.minReaderVersion(),
            p.minWriterVersion(),
            List.copyOf(p.readerFeatures()),
            List.copyOf(p.writerFeatures())),
        snapshot.getPartitionColumnNames(),
        new DeltaHealth.DataFiles(
            files.size(),
            bytes,
            recordsKnown ? records : null,
            files.isEmpty() ? 0 : bytes / files.size(),
            target,
            small,
            histogram),
        new DeltaHealth.DeletionVectors(
            dvFiles, deleted, recordsKnown && records > 0 ? (double) deleted / records : null),
        new DeltaHealth.Tombstones(tombstones.size(), inRetention),
        new DeltaHealth.Checkpoints(
            checkpoint.map(LogFile::version).orElse(null),
            checkpoint.map(c -> Math.max(0, now - c.modificationTime())).orElse(null),
            commitsSince),
        new DeltaHealth.Log(
            log.files().size(),
            log.bytes(),
            log.of(LogFile.Kind.COMMIT).size(),
            log.of(LogFile.Kind.CHECKPOINT).size(),
            log.oldestCommitVersion().isPresent() ? log.oldestCommitVersion().getAsLong() : null),
        retention,
        new TreeMap<>(props));
  }
}
