package dev.resurfacer.delta.log;

import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.TableStorage;
import dev.resurfacer.storage.StoredFile;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Removes {@code _delta_log} entries older than {@code delta.logRetentionDuration} (30 days), as
 * Delta's metadata cleanup does: only entries of versions before a complete checkpoint, chosen so
 * that every commit removed is older than the retention. Versions from that checkpoint on stay
 * reconstructable; time travel to an older version was already outside the retention. Sidecar files
 * of V2 checkpoints and {@code _last_checkpoint} are never touched.
 */
public final class LogCleanup {
  private LogCleanup() {}

  /**
   * @param keepFromVersion entries of versions below it are deleted (the checkpoint kept), or -1 when nothing can go
   */
  public record Plan(
      String table, long version, long retentionMs, long keepFromVersion, List<LogFile> deletions) {
    public Plan {
      deletions = List.copyOf(deletions);
    }

    public long bytes() {
      return deletions.stream().mapToLong(LogFile::size).sum();
    }
  }

  public record Result(Plan plan, long deleted, long deletedBytes, List<String> skipped) {
    public Result {
      skipped = List.copyOf(skipped);
    }
  }

  public static Plan plan(DeltaTable table, Optional<Duration> retentionOverride, Clock clock) {
    var snapshot = table.latest();
    Map<String, String> props = snapshot.getTableProperties();
    Duration retention = retentionOverride.orElse(Retention.logRetention(props));
    long cutoff = clock.millis() - retention.toMillis();
    DeltaLogFiles log = DeltaLogFiles.list(table);
    List<LogFile> commits = log.of(LogFile.Kind.COMMIT);
    Set<Long> checkpointVersions = completeCheckpoints(log.of(LogFile.Kind.CHECKPOINT));

    long keepFrom = -1;
    for (long c : new TreeSet<>(checkpointVersions).descendingSet()) {
      if (c > snapshot.getVersion()) {
        continue;
      }
      boolean allOld = commits.stream()
          .filter(f -> f.version() < c)
          .allMatch(f -> f.modificationTime() < cutoff);
      boolean checkpointOld = log.of(LogFile.Kind.CHECKPOINT).stream()
          .filter(f -> f.version() == c)
          .allMatch(f -> f.modificationTime() < cutoff);
      if (allOld && checkpointOld) {
        keepFrom = c;
        break;
      }
    }
    List<LogFile> deletions = new ArrayList<>();
    if (keepFrom > 0) {
      long k = keepFrom;
      for (LogFile f : log.files()) {
        boolean versioned = f.kind() == LogFile.Kind.COMMIT
            || f.kind() == LogFile.Kind.CHECKPOINT
            || f.kind() == LogFile.Kind.CHECKSUM
            || f.kind() == LogFile.Kind.COMPACTION;
        if (versioned && f.version() >= 0 && f.version() < k && f.modificationTime() < cutoff) {
          deletions.add(f);
        }
      }
    }
    deletions.sort(Comparator.comparingLong(LogFile::version));
    return new Plan(table.name(), snapshot.getVersion(), retention.toMillis(), keepFrom, deletions);
  }

  /** Deletes the planned entries oldest first, so an interruption leaves a log without gaps. */
  public static Result execute(DeltaTable table, Plan plan) {
    long deleted = 0, bytes = 0;
    List<String> skipped = new ArrayList<>();
    StoredFile logDir = table.storage().logDir();
    for (LogFile f : plan.deletions()) {
      try {
        if (!f.path().parent().equals(logDir) || table.storage().stat(f.path()).isEmpty()) {
          skipped.add(f.path() + ": not a regular file of this log (or already gone)");
          continue;
        }
        table.storage().delete(f.path());
        deleted++;
        bytes += f.size();
      } catch (java.nio.file.NoSuchFileException e) {
        skipped.add(f.path() + ": already gone");
      } catch (IOException e) {
        skipped.add(f.path() + ": " + e.getMessage());
        break;
      }
    }
    return new Result(plan, deleted, bytes, skipped);
  }

  /** Versions whose checkpoint is whole: a single file, or every part {@code i.n} of a multi-part one. */
  static Set<Long> completeCheckpoints(List<LogFile> checkpoints) {
    Map<Long, List<String>> byVersion = checkpoints.stream()
        .collect(Collectors.groupingBy(
            LogFile::version,
            Collectors.mapping(f -> TableStorage.name(f.path()), Collectors.toList())));
    Set<Long> out = new TreeSet<>();
    byVersion.forEach((v, names) -> {
      var multi = names.stream()
          .filter(n -> n.matches("\\d{20}\\.checkpoint\\.\\d{10}\\.\\d{10}\\.parquet"))
          .toList();
      if (multi.size() < names.size()) {
        out.add(v);
      } else {
        // parts of different sets (two writers, n=2 and n=3) never add up to one whole checkpoint
        Map<Integer, Set<Integer>> partsBySetSize = new java.util.HashMap<>();
        for (String n : multi) {
          String[] f = n.split("\\.");
          partsBySetSize
              .computeIfAbsent(Integer.parseInt(f[3]), k -> new TreeSet<>())
              .add(Integer.parseInt(f[2]));
        }
        partsBySetSize.forEach((size, parts) -> {
          if (parts.size() == size && parts.stream().allMatch(p -> p >= 1 && p <= size)) {
            out.add(v);
          }
        });
      }
    });
    return out;
  }
}
