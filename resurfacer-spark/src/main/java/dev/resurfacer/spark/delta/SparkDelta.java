package dev.resurfacer.spark.delta;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.Vacuum;
import dev.resurfacer.spark.SparkContent;
import dev.resurfacer.spark.SparkSql;
import dev.resurfacer.storage.StoredFile;
import io.delta.kernel.Snapshot;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What the Spark engine's Delta executors share: the cluster's SQL session (delta-spark with its
 * extension and {@code spark_catalog} there) and how a table of a {@code type: delta} catalog is
 * named on it — by its location, {@code delta.`<root>`}, so no metastore entry is needed.
 */
public record SparkDelta(SparkSql sql) {
  public SparkDelta {
    Objects.requireNonNull(sql, "sql");
  }

  /** The operations delta-spark runs for us; checkpoint and log cleanup stay local (refused with the capability's note). */
  public List<OperationExecutor<?, DeltaTable>> executors() {
    return List.of(
        OperationExecutor.of(Compact.class, new SparkDeltaCompact(this)),
        OperationExecutor.of(Vacuum.class, new SparkDeltaVacuum(this)));
  }

  /** {@code delta.`file:/data/t`} or {@code delta.`s3a://bucket/t`}: Hadoop's S3 file system is s3a. */
  static String relation(DeltaTable t) {
    String root = t.uri().endsWith("/") ? t.uri().substring(0, t.uri().length() - 1) : t.uri();
    if (root.startsWith("s3://")) {
      root = "s3a://" + root.substring("s3://".length());
    }
    return "delta.`" + root.replace("`", "``") + "`";
  }

  /** A path as delta-spark reports it (Hadoop's spelling, s3a for S3) as the table's storage names it. */
  static StoredFile stored(DeltaTable t, String sparkPath) {
    String path = sparkPath.startsWith("s3a://")
        ? "s3://" + sparkPath.substring("s3a://".length())
        : sparkPath;
    return t.storage().fromKernelPath(path);
  }

  /**
   * The relation Spark opens at the table's location, once it is shown to be the table we read: the
   * same table id, the same newest version and the same number of live files. A location opened
   * through another file system binding (a mount, another bucket endpoint) could be another table
   * whose files our fences and plan never looked at.
   */
  String sameTable(DeltaTable t, Snapshot snapshot) {
    String relation = relation(t);
    Map<String, Object> detail = SparkContent.one(sql, "DESCRIBE DETAIL " + relation);
    long version = SparkContent.asLong(
        SparkContent.one(sql, "DESCRIBE HISTORY " + relation + " LIMIT 1").get("version"));
    String id = String.valueOf(detail.get("id"));
    long files = SparkContent.asLong(detail.get("numFiles"));
    long ours = LiveFiles.of(t, snapshot).size();
    if (!KernelInternals.tableId(snapshot).equals(id)
        || version != snapshot.getVersion()
        || files != ours) {
      throw new SafetyRefusal(
          "Spark's " + relation + " is table " + id + " at version " + version + " with " + files
              + " file(s), "
              + t.name() + " is " + KernelInternals.tableId(snapshot) + " at version "
              + snapshot.getVersion() + " with " + ours
              + ": not shown to be the same table (or a commit landed between the reads); nothing was run");
    }
    return relation;
  }

  /** The live rows of one version, measured on the cluster. */
  SparkContent contentAt(String relation, long version) {
    return SparkContent.of(sql, relation + " VERSION AS OF " + version);
  }

  /** The operation delta-spark recorded for each version after {@code before} up to {@code newest} ({@code OPTIMIZE}, {@code WRITE}, ...). */
  Map<Long, String> operationsAfter(String relation, long before, long newest) {
    // the history's newest entries at query time: a commit landing meanwhile pushes ours down, so
    // the
    // window widens until it holds every version asked for
    for (long limit = newest - before; limit <= 64 * (newest - before) + 64; limit *= 2) {
      Map<Long, String> out = new java.util.TreeMap<>();
      for (Map<String, Object> row : sql.rows("DESCRIBE HISTORY " + relation + " LIMIT " + limit)) {
        long version = SparkContent.asLong(row.get("version"));
        if (version > before && version <= newest) {
          out.put(version, String.valueOf(row.get("operation")));
        }
      }
      if (out.size() == newest - before) {
        return out;
      }
    }
    throw new IllegalStateException(
        "the history of " + relation + " does not show versions " + (before + 1) + ".." + newest
            + " (commits keep landing); nothing was verified: inspect them");
  }

  /** Every data file of one version and the deletion vector files they use. */
  static Set<StoredFile> liveFiles(DeltaTable t, Snapshot snapshot) {
    Set<StoredFile> out = new HashSet<>();
    for (LiveFile f : LiveFiles.of(t, snapshot)) {
      out.add(f.file());
    }
    return out;
  }
}
