package dev.resurfacer.trino;

import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.iceberg.orphans.OrphanFences;
import dev.resurfacer.maintain.OperationExecutor;
import java.util.List;

/**
 * The operations Trino's Iceberg connector runs for us: compact (optimize), rewrite-manifests
 * (optimize_manifests), expire (expire_snapshots) and remove-orphans (remove_orphan_files). The
 * rest (dangling deletes, position-delete rewrites, condense, retention properties) has no Trino
 * procedure and is refused by the runner with the capability's note.
 */
public final class IcebergOnTrino {
  private IcebergOnTrino() {}

  /** @param fences what orphan removal respects beyond the table; null for the table's own catalog */
  public static List<OperationExecutor<?, IcebergTable>> executors(TrinoConnection trino, OrphanFences fences) {
    TrinoStatements statements = new TrinoStatements(trino);
    return List.of(new TrinoCompact(statements), new TrinoRewriteManifests(statements), new TrinoExpire(statements),
        new TrinoRemoveOrphans(statements, fences));
  }
}
