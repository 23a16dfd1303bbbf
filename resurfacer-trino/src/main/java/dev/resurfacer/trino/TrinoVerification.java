package dev.resurfacer.trino;

import dev.resurfacer.iceberg.maintain.IcebergTable;
import java.util.stream.Collectors;
import org.apache.iceberg.Table;

/**
 * The check after a rewrite that Trino committed itself: the row count and Trino's
 * order-independent {@code checksum} of every row at the snapshot before and at the one Trino
 * wrote must be equal. On a mismatch the table goes back to the snapshot before (when nothing
 * else committed since) and the step fails.
 */
final class TrinoVerification {
  private TrinoVerification() {}

  static String sameRows(TrinoStatements trino, IcebergTable t, long before, long after) {
    Table table = t.table();
    String columns = table.schema().columns().stream().map(c -> TrinoTableName.quote(c.name())).collect(Collectors.joining(", "));
    String name = TrinoTableName.of(trino.connection().catalog(), t.identifier()).sql();
    String fingerprintBefore = fingerprint(trino, name, columns, before);
    String fingerprintAfter = fingerprint(trino, name, columns, after);
    if (!fingerprintBefore.equals(fingerprintAfter)) {
      table.refresh();
      boolean rolledBack = false;
      if (table.currentSnapshot() != null && table.currentSnapshot().snapshotId() == after) {
        table.manageSnapshots().setCurrentSnapshot(before).commit();
        rolledBack = true;
      }
      throw new IllegalStateException("Trino's rewrite changed the rows (count and checksum " + fingerprintBefore + " before, "
          + fingerprintAfter + " after); " + (rolledBack ? "the table is back at snapshot " + before
          : "another commit followed, so the table was left as it is: roll back to snapshot " + before + " by hand"));
    }
    return "row count and checksum of every column equal at snapshots " + before + " and " + after + " (" + fingerprintAfter + ")";
  }

  private static String fingerprint(TrinoStatements trino, String table, String columns, long snapshot) {
    return trino.value("verify", "SELECT CAST(count(*) AS varchar) || '/' || COALESCE(to_hex(checksum(ROW(" + columns + "))), '-')"
        + " FROM " + table + " FOR VERSION AS OF " + snapshot);
  }
}
