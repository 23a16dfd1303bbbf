package dev.resurfacer.trino;

import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.ExpireSnapshots;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Operation;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.RemoveOrphans;
import dev.resurfacer.maintain.RewriteManifests;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.storage.StorageFences;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The operations Trino's Iceberg connector runs for us: compact (optimize), rewrite-manifests
 * (optimize_manifests), expire (expire_snapshots) and remove-orphans (remove_orphan_files). The
 * rest (dangling deletes, position-delete rewrites, condense, retention properties) has no Trino
 * procedure and is refused by the runner with the capability's note.
 *
 * <p>Each table goes through the Trino catalog that exposes our catalog: {@code catalogs.<ours>}
 * when configured, else the engine's {@code catalog}.
 */
public final class IcebergOnTrino {
  private IcebergOnTrino() {}

  /** @param fences what orphan removal respects beyond the table; null for the table's own catalog */
  public static List<OperationExecutor<?, IcebergTable>> executors(
      TrinoConnection trino, StorageFences fences) {
    return executors(trino, Map.of(), fences);
  }

  /**
   * @param catalogs our catalog name to the Trino catalog that exposes it, where they differ from
   *     {@code trino.catalog()}
   */
  public static List<OperationExecutor<?, IcebergTable>> executors(
      TrinoConnection trino, Map<String, String> catalogs, StorageFences fences) {
    return List.of(
        new Routed<>(trino, catalogs, Compact.class, TrinoCompact::new),
        new Routed<>(trino, catalogs, RewriteManifests.class, TrinoRewriteManifests::new),
        new Routed<>(trino, catalogs, ExpireSnapshots.class, TrinoExpire::new),
        new Routed<>(trino, catalogs, RemoveOrphans.class, s -> new TrinoRemoveOrphans(s, fences)));
  }

  /** One operation's executor, made for the Trino catalog of the table at hand. */
  private record Routed<O extends Operation>(
      TrinoConnection trino,
      Map<String, String> catalogs,
      Class<O> operationType,
      Function<TrinoStatements, OperationExecutor.Body<O, IcebergTable>> make)
      implements OperationExecutor<O, IcebergTable> {
    Routed {
      catalogs = Map.copyOf(catalogs);
    }

    @Override
    public Step execute(O op, IcebergTable t, Mode mode) throws Exception {
      TrinoConnection forTable =
          trino.withCatalog(catalogs.getOrDefault(t.catalog().name(), trino.catalog()));
      return make.apply(new TrinoStatements(forTable)).execute(op, t, mode);
    }
  }
}
