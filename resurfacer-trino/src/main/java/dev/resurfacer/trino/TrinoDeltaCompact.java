package dev.resurfacer.trino;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.delta.compact.CompactionDefaults;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.RewriteOptions;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.units.ByteSizes;
import io.delta.kernel.Snapshot;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Delta compaction as Trino's {@code ALTER TABLE … EXECUTE optimize(file_size_threshold => …)}:
 * Trino rewrites the table's data files below the threshold. The preview is those files, read from
 * the log by Delta Kernel; the threshold is {@code min-file-size-bytes}, else 75% of the target
 * ({@code target-file-size-bytes}, else the table's {@code delta.targetFileSize}, else 100MB), the
 * same rule as for Iceberg on Trino. Z-order and options Trino has no equivalent for are refused.
 *
 * <p>Trino commits on its own: afterwards its {@code OPTIMIZE} version must hold the same row count
 * and checksum of every column as the version before it. Trino cannot restore a Delta table, so a
 * mismatch fails the step naming the version to restore to (nothing is undone automatically).
 */
record TrinoDeltaCompact(TrinoStatements trino)
    implements OperationExecutor.Body<Compact, DeltaTable> {
  static final Set<String> MAPPED_OPTIONS = Set.of("min-file-size-bytes", "target-file-size-bytes");

  @Override
  public Step execute(Compact op, DeltaTable t, Mode mode) {
    if (!op.strategy().equals("binpack")) {
      throw new SafetyRefusal(
          "Trino's Delta optimize only bin-packs (no " + op.strategy() + "); use --engine local");
    }
    Set<String> unmapped = op.options().keySet().stream()
        .filter(k -> !MAPPED_OPTIONS.contains(k))
        .collect(Collectors.toCollection(TreeSet::new));
    if (!unmapped.isEmpty()) {
      throw new SafetyRefusal(
          "Trino's Delta optimize has no equivalent of " + String.join(", ", unmapped)
              + " (it takes only file_size_threshold and the target file size); drop them or use --engine local");
    }
    Snapshot snapshot = t.latest();
    TrinoTableName name = DeltaOnTrino.sameTable(trino, t, snapshot);
    RewriteOptions options = new RewriteOptions(op.options());
    long target = options
        .targetFileSize()
        .orElseGet(() -> CompactionDefaults.targetFileSize(snapshot.getTableProperties()));
    long threshold = options.minFileSize().orElse((long) (target * 0.75));
    long files = 0;
    long bytes = 0;
    for (LiveFile f : LiveFiles.of(t, snapshot)) {
      if (f.size() < threshold) {
        files++;
        bytes += f.size();
      }
    }
    Map<String, Long> metrics = new LinkedHashMap<>();
    metrics.put("candidate_files", files);
    metrics.put("candidate_bytes", bytes);
    String rule = "Trino's optimize rewrites files below " + ByteSizes.format(threshold);
    if (files == 0) {
      return Step.nothingToDo(
          "no data file below " + ByteSizes.format(threshold) + " (" + rule + ")", metrics);
    }
    String columns = snapshot.getSchema().fieldNames().stream()
        .map(TrinoTableName::quote)
        .collect(Collectors.joining(", "));
    TrinoVerification.requireReadable(trino, t.name(), name.sql(), columns);
    if (mode == Mode.PREVIEW) {
      return Step.previewed(
          rule + ": " + files + " candidate file(s) (" + ByteSizes.format(bytes) + ") at version "
              + snapshot.getVersion() + "; Trino groups them per partition itself",
          metrics);
    }
    long before = snapshot.getVersion();
    Map<String, String> session = op.options().containsKey("target-file-size-bytes")
        ? Map.of(trino.connection().catalog() + ".target_max_file_size", target + "B")
        : Map.of();
    trino.execute("optimize", TrinoStatements.optimize(name, threshold), session);
    long after = t.latest().getVersion();
    if (after == before) {
      return Step.nothingToDo("Trino's optimize committed nothing (" + rule + ")", metrics);
    }
    String fingerprintBefore = TrinoVerification.fingerprint(trino, name.sql(), columns, before);
    String verified = "";
    for (long v = before + 1; v <= after; v++) {
      String at = TrinoVerification.fingerprint(trino, name.sql(), columns, v);
      if (!at.equals(fingerprintBefore)) {
        throw new IllegalStateException(
            "the rows of " + t.name() + " changed between version " + before + " and " + v
                + " (count and checksum " + fingerprintBefore + " before, " + at
                + " after) while Trino's optimize ran: Trino cannot"
                + " restore a Delta table, so inspect it and restore version " + before
                + " with another engine if the change is not a"
                + " concurrent writer's");
      }
      verified = at;
    }
    metrics.put("versions", after - before);
    return Step.done(
        String.format(
            "Trino's optimize rewrote the files below %s into version %d, verified: row count and checksum"
                + " of every column equal to version %d (%s)",
            ByteSizes.format(threshold), after, before, verified),
        metrics);
  }
}
