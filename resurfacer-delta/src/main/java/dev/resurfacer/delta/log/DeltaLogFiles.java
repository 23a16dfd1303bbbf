package dev.resurfacer.delta.log;

import dev.resurfacer.delta.log.LogFile.Kind;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.TableStorage;
import dev.resurfacer.storage.StoredFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What {@code _delta_log} holds, listed from storage (sidecars included), sorted by version. */
public record DeltaLogFiles(List<LogFile> files) {
  private static final Pattern COMMIT = Pattern.compile("(\\d{20})\\.json");
  private static final Pattern CHECKPOINT = Pattern.compile(
      "(\\d{20})\\.checkpoint(\\.\\d{10}\\.\\d{10}|\\.[0-9a-fA-F-]{36})?\\.(parquet|json)");
  private static final Pattern CHECKSUM = Pattern.compile("(\\d{20})\\.crc");
  private static final Pattern COMPACTION =
      Pattern.compile("(\\d{20})\\.(\\d{20})\\.compacted\\.json");

  public DeltaLogFiles {
    files = List.copyOf(files);
  }

  public static DeltaLogFiles list(DeltaTable table) {
    return list(table.storage());
  }

  public static DeltaLogFiles list(TableStorage storage) {
    List<LogFile> out = new ArrayList<>();
    StoredFile logDir = storage.logDir();
    try {
      for (TableStorage.Entry e : storage.listLog()) {
        out.add(classify(logDir, e.file(), e.size(), e.modificationTime()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + logDir, e);
    }
    out.sort(
        Comparator.comparingLong(LogFile::version).thenComparing(f -> f.path().toString()));
    return new DeltaLogFiles(out);
  }

  static LogFile classify(StoredFile logDir, StoredFile file, long size, long mtime) {
    String name = TableStorage.name(file);
    if (!file.parent().equals(logDir)) {
      return new LogFile(
          file,
          TableStorage.name(file.parent()).equals("_sidecars") ? Kind.SIDECAR : Kind.OTHER,
          -1,
          size,
          mtime);
    }
    Matcher m;
    if ((m = COMMIT.matcher(name)).matches()) {
      return new LogFile(file, Kind.COMMIT, Long.parseLong(m.group(1)), size, mtime);
    }
    if ((m = CHECKPOINT.matcher(name)).matches()) {
      return new LogFile(file, Kind.CHECKPOINT, Long.parseLong(m.group(1)), size, mtime);
    }
    if ((m = CHECKSUM.matcher(name)).matches()) {
      return new LogFile(file, Kind.CHECKSUM, Long.parseLong(m.group(1)), size, mtime);
    }
    if ((m = COMPACTION.matcher(name)).matches()) {
      return new LogFile(file, Kind.COMPACTION, Long.parseLong(m.group(2)), size, mtime);
    }
    if (name.equals("_last_checkpoint")) {
      return new LogFile(file, Kind.LAST_CHECKPOINT, -1, size, mtime);
    }
    return new LogFile(file, Kind.OTHER, -1, size, mtime);
  }

  public List<LogFile> of(Kind kind) {
    return files.stream().filter(f -> f.kind() == kind).toList();
  }

  public long bytes() {
    return files.stream().mapToLong(LogFile::size).sum();
  }

  /** The newest checkpoint at or below {@code version} (all parts of a multi-part checkpoint share it). */
  public Optional<LogFile> latestCheckpoint(long version) {
    return of(Kind.CHECKPOINT).stream()
        .filter(f -> f.version() <= version)
        .max(Comparator.comparingLong(LogFile::version));
  }

  public OptionalLong oldestCommitVersion() {
    return of(Kind.COMMIT).stream().mapToLong(LogFile::version).min();
  }
}
