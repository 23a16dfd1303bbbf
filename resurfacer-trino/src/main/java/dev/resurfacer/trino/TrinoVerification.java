package dev.resurfacer.trino;

import dev.resurfacer.iceberg.maintain.IcebergTable;
import java.util.stream.Collectors;
import org.apache.iceberg.Table;

/**
 * The check after a rewrite that Trino committed itself: the row count and Trino's
 * order-independent {@code checksum} of every row at the snapshot before and at the one Trino
 * wrote must be equal to those of its parent. On a mismatch the table goes back to the parent (only
 * by a compare-and-set, when nothing else committed since) and the step fails.
 */
final class TrinoVerification {
  private TrinoVerification() {}

  /**
   * Every rewrite committed since {@code before} against its own parent (a writer may have appended
   * between); a mismatch undoes that rewrite only if nothing committed on top of it.
   */
  static String sameRows(TrinoStatements trino, IcebergTable t, long before, long after) {
    Table table = t.table();
    String columns = table.schema().columns().stream()
        .map(c -> TrinoTableName.quote(c.name()))
        .collect(Collectors.joining(", "));
    String name = trino.name(t.identifier()).sql();
    java.util.List<String> checked = new java.util.ArrayList<>();
    for (org.apache.iceberg.Snapshot rewrite :
        dev.resurfacer.iceberg.engines.RemoteRewrites.since(table, before)) {
      String fingerprintBefore = fingerprint(trino, name, columns, rewrite.parentId());
      String fingerprintAfter = fingerprint(trino, name, columns, rewrite.snapshotId());
      if (!fingerprintBefore.equals(fingerprintAfter)) {
        boolean rolledBack =
            dev.resurfacer.iceberg.engines.RemoteRewrites.rollBackIfStillCurrent(table, rewrite);
        throw new IllegalStateException(
            "Trino's rewrite " + rewrite.snapshotId() + " changed the rows (count and checksum "
                + fingerprintBefore + " before, " + fingerprintAfter + " after); "
                + (rolledBack
                    ? "the table is back at snapshot " + rewrite.parentId()
                    : "another commit followed, so the table was left as it is: inspect it and roll back to snapshot "
                        + rewrite.parentId() + " by hand"));
      }
      checked.add(rewrite.snapshotId() + " (" + fingerprintAfter + ")");
    }
    if (checked.isEmpty()) {
      throw new IllegalStateException("Trino committed snapshot " + after
          + " but no rewrite snapshot follows " + before + "; it was not verified");
    }
    return "row count and checksum of every column equal to each rewrite's parent: "
        + String.join(", ", checked);
  }

  /**
   * Fails before anything is changed when Trino's user may not read the table: the check after
   * Trino's commit reads every row, and a rewrite we cannot verify must not be started. Trino
   * checks the privilege while analysing the query, so no row is read here.
   */
  static void requireReadable(TrinoStatements trino, IcebergTable t) {
    requireReadable(
        trino,
        t.name(),
        trino.name(t.identifier()).sql(),
        t.table().schema().columns().stream()
            .map(c -> TrinoTableName.quote(c.name()))
            .collect(Collectors.joining(", ")));
  }

  static void requireReadable(TrinoStatements trino, String name, String table, String columns) {
    trino.value(
        "read " + name + " (needed to verify the rewrite)",
        "SELECT " + columns + " FROM " + table + " WHERE false");
  }

  /** Row count and Trino's checksum of every column at one version ({@code columns} quoted, comma-separated). */
  static String fingerprint(TrinoStatements trino, String table, String columns, long snapshot) {
    return trino.value(
        "verify",
        "SELECT CAST(count(*) AS varchar) || '/' || COALESCE(to_hex(checksum(ROW(" + columns
            + "))), '-')" + " FROM " + table + " FOR VERSION AS OF " + snapshot);
  }
}
