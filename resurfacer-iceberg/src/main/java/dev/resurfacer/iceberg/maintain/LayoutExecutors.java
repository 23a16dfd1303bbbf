package dev.resurfacer.iceberg.maintain;

import dev.resurfacer.iceberg.compact.Condensing;
import dev.resurfacer.iceberg.deletes.DeletionVectorRewrite;
import dev.resurfacer.iceberg.deletes.EqualityDeleteConversion;
import dev.resurfacer.iceberg.deletes.PositionDeleteRewrite;
import dev.resurfacer.iceberg.retention.MetadataRetention;
import dev.resurfacer.iceberg.stats.PartitionStats;
import dev.resurfacer.iceberg.stats.TableStatistics;
import dev.resurfacer.maintain.ApplyRetention;
import dev.resurfacer.maintain.ComputePartitionStats;
import dev.resurfacer.maintain.ComputeStats;
import dev.resurfacer.maintain.Condense;
import dev.resurfacer.maintain.ConvertEqualityDeletes;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.RewritePositionDeletes;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * The operations that change a table's settings, layout, delete representation or statistics, each
 * delegating to its verb's library class (the reclaiming ones are in {@link BuiltInExecutors}).
 */
final class LayoutExecutors {
  private LayoutExecutors() {}

  static List<OperationExecutor<?, IcebergTable>> all() {
    return List.of(
        OperationExecutor.of(ApplyRetention.class, LayoutExecutors::applyRetention),
        OperationExecutor.of(Condense.class, LayoutExecutors::condense),
        OperationExecutor.of(RewritePositionDeletes.class, LayoutExecutors::rewritePositionDeletes),
        OperationExecutor.of(ConvertEqualityDeletes.class, LayoutExecutors::convertEqualityDeletes),
        OperationExecutor.of(ComputeStats.class, LayoutExecutors::computeStats),
        OperationExecutor.of(ComputePartitionStats.class, LayoutExecutors::computePartitionStats));
  }

  private static Step applyRetention(ApplyRetention op, IcebergTable t, Mode mode) {
    MetadataRetention.Plan plan =
        MetadataRetention.plan(t.table(), op.keep(), op.deleteAfterCommit());
    MetadataRetention.Result r =
        mode == Mode.COMMIT ? MetadataRetention.execute(plan) : plan.preview();
    Map<String, Long> m = Map.of(
        "metadata_in_log",
        (long) r.metadataInLog(),
        "stranded_files",
        (long) r.strandedFiles(),
        "stranded_bytes",
        r.strandedBytes());
    String stranded = r.strandedFiles() + " stranded metadata.json ("
        + ByteSizes.format(r.strandedBytes()) + ") for remove-orphans";
    if (r.propertiesToSet().isEmpty()) {
      return Step.nothingToDo("retention already set; " + stranded, m);
    }
    return r.committed()
        ? Step.done("set " + r.propertiesToSet() + "; " + stranded, m)
        : Step.previewed("would set " + r.propertiesToSet() + "; " + stranded, m);
  }

  private static Step condense(Condense op, IcebergTable t, Mode mode) {
    Condensing.Plan plan = Condensing.plan(t.table(), op);
    Condensing.CondenseResult r = mode == Mode.COMMIT ? Condensing.execute(plan) : plan.preview();
    if (r.doesNotApply() != null) {
      return Step.nothingToDo(r.doesNotApply(), Map.of("partitions", 0L, "files", 0L, "bytes", 0L));
    }
    long files = r.partitions().stream().mapToLong(Condensing.Partition::files).sum();
    long bytes = r.partitions().stream().mapToLong(Condensing.Partition::bytes).sum();
    Map<String, Long> m =
        Map.of("partitions", (long) r.partitions().size(), "files", files, "bytes", bytes);
    if (r.partitions().isEmpty()) {
      return Step.nothingToDo(
          "no " + r.to() + " partition ended more than " + Durations.format(op.olderThan())
              + " ago",
          m);
    }
    String what = r.partitions().size() + " " + r.to() + " partition(s), " + files + " file(s) ("
        + ByteSizes.format(bytes) + ")";
    if (mode == Mode.PREVIEW) {
      return Step.previewed("would condense " + what, m);
    }
    Condensing.Partition bad = r.partitions().stream()
        .filter(p -> !p.status().equals("committed"))
        .findFirst()
        .orElse(null);
    if (bad != null) {
      throw new IllegalStateException("partition " + bad.partition() + " " + bad.status()
          + (bad.message() == null ? "" : ": " + bad.message()));
    }
    return Step.done("condensed " + what, m);
  }

  private static Step rewritePositionDeletes(RewritePositionDeletes op, IcebergTable t, Mode mode) {
    boolean commit = mode == Mode.COMMIT;
    if (PositionDeleteRewrite.carriesDeletionVectors(t.table())) {
      DeletionVectorRewrite.Plan plan = DeletionVectorRewrite.plan(t.table());
      DeletionVectorRewrite.Result r =
          commit ? DeletionVectorRewrite.execute(plan) : plan.preview();
      Map<String, Long> m = Map.of(
          "position_delete_files",
          r.positionDeleteFiles(),
          "data_files",
          r.dataFiles(),
          "deletion_vectors",
          r.deletionVectors(),
          "positions",
          r.positions());
      if (r.positionDeleteFiles() == 0) {
        return Step.nothingToDo("no position-delete files to turn into deletion vectors", m);
      }
      String what = r.positionDeleteFiles() + " position-delete file(s) into " + r.deletionVectors()
          + " deletion vector(s)";
      return r.committed()
          ? Step.done("turned " + what, m)
          : Step.previewed("would turn " + what, m);
    }
    PositionDeleteRewrite.Plan plan = PositionDeleteRewrite.plan(t.table(), op.options());
    PositionDeleteRewrite.Result r = commit ? PositionDeleteRewrite.execute(plan) : plan.preview();
    long kept =
        r.groups().stream().mapToLong(PositionDeleteRewrite.Group::keptEntries).sum();
    long dropped = r.groups().stream()
        .mapToLong(PositionDeleteRewrite.Group::droppedEntries)
        .sum();
    Map<String, Long> m = Map.of(
        "groups",
        (long) r.groups().size(),
        "rewritten_files",
        r.rewrittenFiles(),
        "kept_entries",
        kept,
        "dropped_entries",
        dropped);
    if (r.groups().isEmpty()) {
      return Step.nothingToDo("no position-delete files to rewrite", m);
    }
    String what =
        r.rewrittenFiles() + " position-delete file(s) in " + r.groups().size() + " group(s)";
    return r.committed()
        ? Step.done("rewrote " + what + ", dropped " + dropped + " entries for gone data files", m)
        : Step.previewed("would rewrite " + what, m);
  }

  private static Step convertEqualityDeletes(ConvertEqualityDeletes op, IcebergTable t, Mode mode) {
    EqualityDeleteConversion.Plan plan = EqualityDeleteConversion.plan(t.table());
    EqualityDeleteConversion.Result r =
        mode == Mode.COMMIT ? EqualityDeleteConversion.execute(plan) : plan.preview();
    Map<String, Long> m = Map.of(
        "equality_delete_files",
        r.equalityDeleteFiles(),
        "data_files",
        r.dataFiles(),
        "deleted_rows",
        r.deletedRows(),
        "written_delete_files",
        r.writtenDeleteFiles());
    if (r.equalityDeleteFiles() == 0) {
      return Step.nothingToDo("no equality-delete files", m);
    }
    String what = r.equalityDeleteFiles() + " equality-delete file(s) (" + r.deletedRows()
        + " rows in " + r.dataFiles() + " data file(s)) into "
        + (r.deletionVectors() ? "deletion vectors" : "position deletes");
    return r.committed()
        ? Step.done("converted " + what, m)
        : Step.previewed("would convert " + what, m);
  }

  private static Step computeStats(ComputeStats op, IcebergTable t, Mode mode) {
    Table table = t.table();
    table.refresh();
    Snapshot current = table.currentSnapshot();
    if (current == null) {
      return Step.nothingToDo("no snapshot", Map.of());
    }
    if (table.statisticsFiles().stream().anyMatch(f -> f.snapshotId() == current.snapshotId())) {
      return Step.nothingToDo(
          "statistics for snapshot " + current.snapshotId() + " already computed", Map.of());
    }
    TableStatistics.Plan plan = TableStatistics.plan(table, op.columns());
    TableStatistics.Result r = mode == Mode.COMMIT ? TableStatistics.execute(plan) : plan.preview();
    Map<String, Long> m = Map.of("columns", (long) r.columns().size(), "file_bytes", r.fileBytes());
    String columns = String.join(
        ", ", r.columns().stream().map(TableStatistics.ColumnNdv::column).toList());
    return r.committed()
        ? Step.done("distinct-value sketches of " + columns + " on snapshot " + r.snapshotId(), m)
        : Step.previewed(
            "would sketch distinct values of " + columns + " on snapshot " + r.snapshotId(), m);
  }

  private static Step computePartitionStats(ComputePartitionStats op, IcebergTable t, Mode mode) {
    if (t.table().specs().values().stream().allMatch(s -> s.isUnpartitioned())) {
      return Step.nothingToDo("unpartitioned: no partition statistics", Map.of());
    }
    PartitionStats.Plan plan = PartitionStats.plan(t.table());
    PartitionStats.Result r = mode == Mode.COMMIT ? PartitionStats.execute(plan) : plan.preview();
    Map<String, Long> m = Map.of("file_bytes", r.fileBytes());
    if (r.snapshotId() == null || r.alreadyComputed()) {
      return Step.nothingToDo(
          r.snapshotId() == null
              ? "no snapshot"
              : "partition statistics for snapshot " + r.snapshotId() + " already computed",
          m);
    }
    return r.committed()
        ? Step.done(
            "partition statistics on snapshot " + r.snapshotId() + " ("
                + ByteSizes.format(r.fileBytes()) + ")",
            m)
        : Step.previewed("would compute partition statistics on snapshot " + r.snapshotId(), m);
  }
}
