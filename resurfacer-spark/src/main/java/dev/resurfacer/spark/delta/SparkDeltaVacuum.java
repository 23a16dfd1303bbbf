package dev.resurfacer.spark.delta;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.TableStorage;
import dev.resurfacer.delta.vacuum.DeltaVacuum;
import dev.resurfacer.delta.vacuum.VacuumOptions;
import dev.resurfacer.delta.vacuum.VacuumPlan;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.maintain.Vacuum;
import dev.resurfacer.spark.SparkContent;
import dev.resurfacer.storage.StoredFile;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delta vacuum as delta-spark's {@code VACUUM … FULL RETAIN n HOURS}, run only when its own
 * {@code DRY RUN} lists nothing our vacuum keeps. Our plan comes first ({@link DeltaVacuum}, every
 * fence: retention, hidden names, {@code _change_data}, links, the log's reach); the dry run's files are
 * compared with it by {@link StoredFile} identity, and one it lists that our plan does not name
 * refuses the run. A directory it lists is allowed: delta-spark deletes directories non-recursively,
 * so only an empty one goes. Spark takes its cutoff from the driver's clock and whole hours: the hours
 * passed are rounded up from the driver's clock plus a margin, so its cutoff is never later than ours.
 * Afterwards every file gone from the table must be one our plan named (or the checksum side file
 * Hadoop's local file system keeps next to it).
 */
final class SparkDeltaVacuum implements OperationExecutor.Body<Vacuum, DeltaTable> {
  private static final Logger PROGRESS =
      LoggerFactory.getLogger("dev.resurfacer.maintain.progress");
  private static final long HOUR = Duration.ofHours(1).toMillis();
  /** How long after the driver's clock is read the vacuum may start and still keep its cutoff before ours. */
  static final long MARGIN = Duration.ofMinutes(10).toMillis();

  private static final int SHOWN = 5;
  private final SparkDelta spark;

  SparkDeltaVacuum(SparkDelta spark) {
    this.spark = spark;
  }

  @Override
  public Step execute(Vacuum op, DeltaTable t, Mode mode) {
    VacuumOptions options = VacuumOptions.of(op);
    VacuumPlan plan = DeltaVacuum.plan(t, options, Clock.systemUTC());
    String relation = spark.sameTable(t, t.latest());
    Set<StoredFile> ours =
        plan.deletions().stream().map(VacuumPlan.Candidate::file).collect(Collectors.toSet());
    long driverNow = driverMillis();
    long hours = Math.max(1, ceilDiv(driverNow + MARGIN - plan.cutoffMs(), HOUR));
    spark
        .sql()
        .rows("SET spark.databricks.delta.retentionDurationCheck.enabled="
            + !op.forceShorterRetention());
    spark.sql().rows("SET spark.databricks.delta.vacuum.retentionWindowIgnore.enabled=false");
    String statement = "VACUUM " + relation + " FULL RETAIN " + hours + " HOURS";
    // The real VACUUM reads the driver's clock again, up to MARGIN later, so it may reach files
    // this
    // dry run did not: the dry run looks one hour further (a superset while the real run starts
    // within
    // the hour). Of what it lists, a file our plan keeps is refused unless our listing dates it
    // after
    // our cutoff, which the real run's cutoff never passes.
    Map<StoredFile, Long> modified = new HashMap<>();
    listing(t).forEach(e -> modified.put(e.file(), e.modificationTime()));
    List<StoredFile> sparks = new ArrayList<>();
    List<String> refused = new ArrayList<>();
    spark.sql().rows("SET spark.databricks.delta.retentionDurationCheck.enabled=false");
    List<Map<String, Object>> dryRun =
        spark.sql().rows("VACUUM " + relation + " FULL RETAIN " + (hours - 1) + " HOURS DRY RUN");
    spark
        .sql()
        .rows("SET spark.databricks.delta.retentionDurationCheck.enabled="
            + !op.forceShorterRetention());
    for (Map<String, Object> row : dryRun) {
      String path = String.valueOf(row.get("path"));
      StoredFile file = SparkDelta.stored(t, path);
      if (ours.contains(file)) {
        sparks.add(file);
      } else if (!emptyableDirectory(file)
          && !(modified.containsKey(file) && modified.get(file) > plan.cutoffMs())) {
        refused.add(path);
      }
    }
    Map<String, Long> metrics = new LinkedHashMap<>();
    metrics.put("listed_files", plan.listedFiles());
    metrics.put("files_to_delete", (long) plan.deletions().size());
    metrics.put("spark_candidates", (long) sparks.size());
    if (!refused.isEmpty()) {
      refused.sort(Comparator.naturalOrder());
      throw new SafetyRefusal(
          "delta-spark's VACUUM would delete " + refused.size() + " file(s) our vacuum keeps, e.g. "
              + refused.stream().limit(SHOWN).collect(Collectors.joining(", ")) + " (its DRY RUN, "
              + statement
              + "); nothing was deleted; use --engine local");
    }
    String rule = "retention " + Durations.format(Duration.ofMillis(plan.retentionMs()));
    if (sparks.isEmpty()) {
      return Step.nothingToDo(
          "delta-spark's VACUUM DRY RUN lists no file past the " + rule + " (our plan: "
              + plan.deletions().size() + " of " + plan.listedFiles() + " listed)",
          metrics);
    }
    String what = sparks.size() + " file(s) of the " + plan.deletions().size() + " ("
        + ByteSizes.format(plan.bytes()) + ") our vacuum deletes";
    if (mode == Mode.PREVIEW) {
      return Step.previewed(
          "delta-spark's VACUUM would delete " + what + ", " + rule + " (its DRY RUN, RETAIN "
              + hours + " HOURS)",
          metrics);
    }
    // listed before the clock is read: on a large table the listing itself can outlast the margin
    Set<StoredFile> before = listed(t);
    if (driverMillis() > driverNow + MARGIN - HOUR / 60) {
      throw new SafetyRefusal(
          "the dry run took too long for its cutoff to hold; nothing was deleted; run vacuum again");
    }
    PROGRESS.info("table={} operation=vacuum engine=spark {}", t.name(), statement);
    spark.sql().rows(statement);
    Set<StoredFile> gone = new HashSet<>(before);
    gone.removeAll(listed(t));
    Set<String> unexpected = gone.stream()
        .filter(f -> !ours.contains(f) && !checksumOf(f, ours))
        .map(StoredFile::toString)
        .collect(Collectors.toCollection(TreeSet::new));
    if (!unexpected.isEmpty()) {
      throw new IllegalStateException("delta-spark's VACUUM deleted " + unexpected.size()
          + " file(s) our plan did not name, e.g. "
          + unexpected.stream().limit(SHOWN).collect(Collectors.joining(", ")));
    }
    long deleted = gone.stream().filter(ours::contains).count();
    metrics.put("deleted_files", deleted);
    return Step.done(
        "delta-spark's VACUUM deleted " + deleted + " file(s), " + rule + " (RETAIN " + hours
            + " HOURS on the driver's clock); every one was in our own vacuum's plan ("
            + plan.deletions().size() + " file(s))",
        metrics);
  }

  private long driverMillis() {
    return SparkContent.asLong(
        SparkContent.one(spark.sql(), "SELECT unix_millis(current_timestamp()) AS now")
            .get("now"));
  }

  static long ceilDiv(long a, long b) {
    return a <= 0 ? 0 : (a + b - 1) / b;
  }

  /** A local directory (not a link): delta-spark's non-recursive delete removes it only when empty. */
  private static boolean emptyableDirectory(StoredFile file) {
    return file.isLocal() && Files.isDirectory(Path.of(file.path()), LinkOption.NOFOLLOW_LINKS);
  }

  /** Hadoop's checksummed local file system keeps {@code .<name>.crc} next to each file it writes and deletes both. */
  static boolean checksumOf(StoredFile file, Set<StoredFile> ours) {
    String name = TableStorage.name(file);
    if (!name.startsWith(".") || !name.endsWith(".crc")) {
      return false;
    }
    StoredFile data = new StoredFile(
        file.scheme(),
        file.authority(),
        file.parent().path() + "/" + name.substring(1, name.length() - ".crc".length()));
    return ours.contains(data);
  }

  private static Set<StoredFile> listed(DeltaTable t) {
    return listing(t).stream().map(TableStorage.Entry::file).collect(Collectors.toSet());
  }

  private static List<TableStorage.Entry> listing(DeltaTable t) {
    try {
      return t.storage().listOutsideLog();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot list " + t.storage().root() + ": " + e.getMessage(), e);
    }
  }
}
