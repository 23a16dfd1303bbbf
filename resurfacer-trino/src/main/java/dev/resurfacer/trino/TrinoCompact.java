package dev.resurfacer.trino;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.RewriteOptions;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.units.ByteSizes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Compaction as Trino's {@code ALTER TABLE … EXECUTE optimize(file_size_threshold => …)}: Trino
 * rewrites every data file below the threshold (and files with deletes) in the selected partitions,
 * writing by the table's declared sort order when it has one.
 *
 * <p>What maps: {@code min-file-size-bytes} is the threshold (default 75% of the table's
 * {@code write.target-file-size-bytes}, as for the local engine); {@code target-file-size-bytes}
 * becomes Trino's session property {@code target_max_file_size}; {@code where}/{@code partition}
 * become the statement's WHERE. Anything else is refused, because Trino would silently ignore it.
 * Sort compaction runs only by the table's own declared order; z-order is refused (Trino has none).
 *
 * <p>Trino commits on its own, so the check is after its commit: Trino's order-independent
 * {@code checksum} of every column and the row count at the snapshot before and the one it wrote
 * must match, else the table is rolled back to the snapshot before and the step fails.
 */
record TrinoCompact(TrinoStatements trino)
    implements OperationExecutor.Body<Compact, IcebergTable> {
  static final Set<String> MAPPED_OPTIONS =
      Set.of("min-file-size-bytes", "target-file-size-bytes", "where", "partition");
  private static final long DEFAULT_TARGET = TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT;

  @Override
  public Step execute(Compact op, IcebergTable t, Mode mode) {
    refuseWhatTrinoCannotDo(op, t.table());
    Table table = t.table();
    long threshold = threshold(op, table);
    String where = TrinoFilters.where(
        table, op.options().get(Compact.WHERE), op.options().get(Compact.PARTITION));
    Candidates candidates = candidates(
        table, threshold, op.options().get(Compact.WHERE), op.options().get(Compact.PARTITION));
    Map<String, Long> metrics = new LinkedHashMap<>();
    metrics.put("candidate_files", candidates.files());
    metrics.put("candidate_bytes", candidates.bytes());
    String rule = "Trino's optimize rewrites files below " + ByteSizes.format(threshold);
    if (candidates.files() == 0) {
      return Step.nothingToDo(
          "no data file below " + ByteSizes.format(threshold) + " (" + rule + ")", metrics);
    }
    TrinoVerification.requireReadable(trino, t);
    if (mode == Mode.PREVIEW) {
      return Step.previewed(
          rule + ": " + candidates.files() + " candidate file(s) ("
              + ByteSizes.format(candidates.bytes()) + ")"
              + (where == null ? "" : " where " + where)
              + "; Trino groups them per partition itself",
          metrics);
    }
    Snapshot before = table.currentSnapshot();
    String sql = TrinoStatements.optimize(trino.name(t.identifier()), threshold)
        + (where == null ? "" : " WHERE " + where);
    OptionalLong target = new RewriteOptions(op.options()).targetFileSize();
    trino.execute(
        "optimize",
        sql,
        target.isEmpty()
            ? Map.of()
            : Map.of(
                trino.connection().catalog() + ".target_max_file_size", target.getAsLong() + "B"));
    table.refresh();
    Snapshot after = table.currentSnapshot();
    if (after == null || before == null || after.snapshotId() == before.snapshotId()) {
      return Step.nothingToDo(
          "Trino's optimize committed nothing (" + rule
              + "; a partition with one file and no deletes is left alone)",
          metrics);
    }
    String verified = TrinoVerification.sameRows(trino, t, before.snapshotId(), after.snapshotId());
    Map<String, String> summary = after.summary();
    metrics.put("rewritten_files", number(summary.get("deleted-data-files")));
    metrics.put("added_files", number(summary.get("added-data-files")));
    metrics.put("rewritten_bytes", number(summary.get("removed-files-size")));
    metrics.put("added_bytes", number(summary.get("added-files-size")));
    return Step.done(
        String.format(
            "Trino's optimize rewrote %d file(s) (%s) into %d (%s) in snapshot %d, verified: %s",
            metrics.get("rewritten_files"),
            ByteSizes.format(metrics.get("rewritten_bytes")),
            metrics.get("added_files"),
            ByteSizes.format(metrics.get("added_bytes")),
            after.snapshotId(),
            verified),
        metrics);
  }

  private static void refuseWhatTrinoCannotDo(Compact op, Table table) {
    switch (op.strategy()) {
      case "binpack" -> {}
      case "zorder" ->
        throw new SafetyRefusal(
            "Trino's optimize has no z-order: it writes by the table's declared sort order only"
                + " (use --engine local for --strategy zorder)");
      case "sort" -> {
        SortOrder declared = table.sortOrder();
        if (declared.isUnsorted()) {
          throw new SafetyRefusal(
              "Trino's optimize sorts only by the table's declared sort order and " + table.name()
                  + " has none (declare one with sorted_by, or use --engine local)");
        }
        if (op.orderBy() != null && !op.orderBy().isBlank()) {
          throw new SafetyRefusal("Trino's optimize sorts only by the table's declared order ("
              + declared.fields().stream().map(Object::toString).collect(Collectors.joining(", "))
              + "); --sort-by " + op.orderBy()
              + " needs --engine local");
        }
      }
      default -> throw new UsageException("unknown compaction strategy " + op.strategy());
    }
    Set<String> unmapped = op.options().keySet().stream()
        .filter(k -> !MAPPED_OPTIONS.contains(k))
        .collect(Collectors.toCollection(java.util.TreeSet::new));
    if (!unmapped.isEmpty()) {
      throw new SafetyRefusal(
          "Trino's optimize has no equivalent of " + String.join(", ", unmapped)
              + " (it takes only file_size_threshold, the target file size and a partition WHERE); drop them or use --engine local");
    }
  }

  static long threshold(Compact op, Table table) {
    RewriteOptions options = new RewriteOptions(op.options());
    long target = options
        .targetFileSize()
        .orElseGet(() -> PropertyUtil.propertyAsLong(
            table.properties(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, DEFAULT_TARGET));
    return options.minFileSize().orElse((long) (target * 0.75));
  }

  private record Candidates(long files, long bytes) {}

  /** Data files below the threshold (or carrying deletes) that may hold rows matching the filter: what Trino's optimize reads. */
  private static Candidates candidates(
      Table table, long threshold, String where, String partition) {
    if (table.currentSnapshot() == null) {
      return new Candidates(0, 0);
    }
    Expression filter = where == null
        ? org.apache.iceberg.expressions.Expressions.alwaysTrue()
        : dev.resurfacer.iceberg.filter.FilterParser.parse(where);
    long files = 0;
    long bytes = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().filter(filter).planFiles()) {
      for (FileScanTask task : tasks) {
        boolean inPartition = partition == null
            || partition.isBlank()
            || (table
                        .specs()
                        .get(task.file().specId())
                        .partitionToPath(task.file().partition()) + "/")
                .startsWith(partition + "/");
        if (inPartition
            && (task.file().fileSizeInBytes() < threshold || !task.deletes().isEmpty())) {
          files++;
          bytes += task.file().fileSizeInBytes();
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Candidates(files, bytes);
  }

  private static long number(String value) {
    return value == null ? 0 : Long.parseLong(value);
  }
}
