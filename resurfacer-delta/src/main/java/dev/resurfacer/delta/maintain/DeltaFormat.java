package dev.resurfacer.delta.maintain;

import dev.resurfacer.UsageException;
import dev.resurfacer.delta.compact.CompactionDefaults;
import dev.resurfacer.delta.compact.DeltaCompactor;
import dev.resurfacer.delta.describe.DeltaDescriber;
import dev.resurfacer.delta.describe.DeltaHealth;
import dev.resurfacer.delta.log.CommitInfos;
import dev.resurfacer.delta.log.DeltaLogFiles;
import dev.resurfacer.delta.log.LogFile;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.table.S3Settings;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.TableFormat;
import dev.resurfacer.maintain.TableSignals;
import dev.resurfacer.report.TableStats;
import dev.resurfacer.storage.StorageFences;
import io.delta.kernel.Snapshot;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The Delta {@link TableFormat}: the tables one {@code type: delta} catalog maps by name, measured from
 * their logs, leased by {@link DeltaLease}, maintained by {@link DeltaExecutors}. The catalog's
 * {@code tables:} are the tables, with those found under its {@code discover:} roots; those roots are
 * walked once, when the tables are first listed or opened.
 */
final class DeltaFormat implements TableFormat<DeltaTable> {
  private final String catalogName;
  private final java.util.function.Supplier<Map<String, String>> listing;
  private Map<String, String> locations;
  private final Path workingDir;
  private final S3Settings s3;
  private final Clock clock;
  private final StorageFences fences;

  DeltaFormat(
      String catalogName,
      Map<String, String> locations,
      Path workingDir,
      S3Settings s3,
      Clock clock) {
    this(catalogName, () -> locations, workingDir, s3, clock, StorageFences.none());
  }

  DeltaFormat(
      String catalogName,
      java.util.function.Supplier<Map<String, String>> listing,
      Path workingDir,
      S3Settings s3,
      Clock clock,
      StorageFences fences) {
    this.catalogName = catalogName;
    this.s3 = s3;
    this.listing = listing;
    this.workingDir = workingDir;
    this.clock = clock;
    this.fences = fences;
  }

  /** The same catalog, its tables' vacuum respecting {@code newFences} (every configured catalog's tables, their own files). */
  @Override
  public DeltaFormat withFences(StorageFences newFences) {
    return new DeltaFormat(catalogName, this::locations, workingDir, s3, clock, newFences);
  }

  @Override
  public dev.resurfacer.formats.Format format() {
    return dev.resurfacer.formats.Format.DELTA;
  }

  @Override
  public java.util.Optional<LayoutAdvice<DeltaTable>> layoutAdvice() {
    return java.util.Optional.of(dev.resurfacer.delta.compact.DeltaLayouts::advise);
  }

  @Override
  public Class<DeltaTable> handleType() {
    return DeltaTable.class;
  }

  @Override
  public String catalogName() {
    return catalogName;
  }

  private synchronized Map<String, String> locations() {
    if (locations == null) {
      locations = Map.copyOf(listing.get());
    }
    return locations;
  }

  @Override
  public List<String> allTables() {
    return locations().keySet().stream().sorted().toList();
  }

  /** The tables named {@code namespace.*}, nested namespaces included, as the glob {@code namespace.*} matches them. */
  @Override
  public List<String> tablesIn(String namespace) {
    List<String> in =
        allTables().stream().filter(t -> t.startsWith(namespace + ".")).toList();
    if (in.isEmpty()) {
      throw new UsageException(
          "namespace " + namespace + " names no table of delta catalog '" + catalogName + "'");
    }
    return in;
  }

  @Override
  public DeltaTable open(String table) {
    String location = locations().get(table);
    if (location == null) {
      throw new UsageException("table " + table + " is not in delta catalog '" + catalogName + "'");
    }
    return DeltaTables.open(table, location, workingDir, s3).withFences(fences);
  }

  /** Nothing to do: every operation and measurement loads the newest snapshot itself. */
  /** Vacuum and log cleanup without a retention use the table's {@code delta.*RetentionDuration}. */
  @Override
  public java.util.Optional<Duration> tableRetention(
      DeltaTable table, dev.resurfacer.maintain.Operation operation) {
    Map<String, String> properties = table.latest().getTableProperties();
    if (operation instanceof dev.resurfacer.maintain.Vacuum) {
      return java.util.Optional.of(
          dev.resurfacer.delta.log.Retention.deletedFileRetention(properties));
    }
    if (operation instanceof dev.resurfacer.maintain.CleanupLog) {
      return java.util.Optional.of(dev.resurfacer.delta.log.Retention.logRetention(properties));
    }
    return java.util.Optional.empty();
  }

  @Override
  public void refresh(DeltaTable table) {}

  /**
   * Deletion vectors count as delete files; {@code snapshots} are the JSON commits still in the log,
   * {@code manifests} its checkpoint files and {@code metadataBytes} the whole {@code _delta_log}.
   */
  @Override
  public TableStats stats(DeltaTable table) {
    DeltaHealth h = DeltaDescriber.describe(table, clock);
    DeltaHealth.DataFiles data = h.data();
    DeltaHealth.Log log = h.log();
    return new TableStats(
        data.dataFiles(),
        data.dataBytes(),
        data.records() == null ? 0 : data.records() - h.deletionVectors().deletedRows(),
        data.smallDataFiles(),
        h.deletionVectors().filesWithDeletionVectors(),
        0,
        (int) Math.min(Integer.MAX_VALUE, log.logCommits()),
        log.logCheckpointFiles(),
        log.logBytes(),
        data.sizeHistogram().stream()
            .map(b -> new TableStats.SizeBucket(
                b.label(), b.minBytes(), b.maxBytes(), b.files(), b.bytes()))
            .toList());
  }

  /**
   * From the log only: the live files of the newest snapshot (their sizes, deletion vectors and
   * {@code numRecords} stats) and the {@code _delta_log} listing. {@code snapshots} are the JSON
   * commits still in the log, {@code metadataFiles} every entry of the log (commits, checkpoints,
   * checksums), delete files the files carrying a deletion vector. Commits since {@code since} are
   * those whose commitInfo is newer, this tool's own ({@code engineInfo} ending in
   * {@value DeltaCompactor#ENGINE_INFO}) left out; only commit files written since then are opened.
   */
  @Override
  public TableSignals signals(DeltaTable table, Instant since) {
    return signals(table, since, 1);
  }

  /**
   * As {@link #signals(DeltaTable, Instant)}, with small files counted where a bin-pack compaction takes them,
   * as Iceberg's are: a partition's small files count when there are at least two and at least
   * {@code minInputFiles} of them, or more bytes of them than the target size; 1 counts every small file. A
   * partition a writer keeps at one small file each (an UPDATE re-adds its file) then never fires a
   * {@code small-files} trigger that compaction has nothing to do for.
   */
  @Override
  public TableSignals signals(DeltaTable table, Instant since, int minInputFiles) {
    Snapshot snapshot = table.latest();
    long target = CompactionDefaults.targetFileSize(snapshot.getTableProperties());
    long files = 0, withDv = 0, records = 0, deleted = 0;
    Map<Map<String, String>, long[]> smallByPartition = new HashMap<>();
    for (LiveFile f : LiveFiles.of(table, snapshot)) {
      files++;
      if (f.size() < target * 3 / 4) {
        long[] c = smallByPartition.computeIfAbsent(f.partitionValues(), k -> new long[2]);
        c[0]++;
        c[1] += f.size();
      }
      if (f.deletionVector().isPresent()) {
        withDv++;
        deleted += f.deletedRows();
      }
      records += f.numRecords().orElse(0);
    }
    long small = 0;
    for (long[] c : smallByPartition.values()) {
      if (TableSignals.smallFilesCount(c[0], c[1], minInputFiles, target)) {
        small += c[0];
      }
    }
    DeltaLogFiles log = DeltaLogFiles.list(table);
    List<LogFile> commits = log.of(LogFile.Kind.COMMIT).stream()
        .filter(c -> c.version() <= snapshot.getVersion())
        .toList();
    // a commit file is written after its commitInfo timestamp: one older than since cannot be newer
    // than since
    List<LogFile> recent = since == null
        ? commits
        : commits.stream()
            .filter(c -> c.modificationTime() > since.toEpochMilli())
            .toList();
    int commitsSince = (int) CommitInfos.read(table, recent).stream()
        .filter(c -> since == null || c.timestamp() > since.toEpochMilli())
        .filter(c -> !c.engineInfo().endsWith("/" + DeltaCompactor.ENGINE_INFO)
            && !c.engineInfo().equals(DeltaCompactor.ENGINE_INFO))
        .count();
    Instant oldest = commits.isEmpty()
        ? null
        : Instant.ofEpochMilli(
            commits.stream().mapToLong(LogFile::modificationTime).min().getAsLong());
    return new TableSignals(
        files,
        small,
        withDv,
        records,
        deleted,
        commits.size(),
        oldest,
        log.files().size(),
        commitsSince);
  }

  @Override
  public AutoCloseable lease(DeltaTable table, String owner, Duration ttl) {
    return DeltaLease.acquire(table.storage(), owner, ttl, clock);
  }

  @Override
  public List<OperationExecutor<?, DeltaTable>> builtInExecutors() {
    return DeltaExecutors.all(clock);
  }
}
