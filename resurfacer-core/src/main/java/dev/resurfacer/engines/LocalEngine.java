package dev.resurfacer.engines;

import dev.resurfacer.maintain.OperationExecutor;
import java.util.List;

/**
 * This JVM: DuckDB and the formats' own libraries. It supplies no executors of its own — each
 * format's built-in executors are the local engine — so its declarations list those operations.
 */
public final class LocalEngine implements ExecutionEngine, ExecutionEngineProvider {
  public static final String NAME = "local";

  private static final List<EngineCapability> CAPABILITIES = List.of(
      EngineCapability.works(NAME, "iceberg", "compact", "bin-pack, sort, z-order; DuckDB or generic runner, verified"),
      EngineCapability.works(NAME, "iceberg", "condense", "coarser spec for aged partitions; generic runner"),
      EngineCapability.works(NAME, "iceberg", "remove-dangling-deletes", "core RemoveDanglingDeleteFilesAction"),
      EngineCapability.works(NAME, "iceberg", "rewrite-position-deletes", "core planner and commit manager"),
      EngineCapability.works(NAME, "iceberg", "rewrite-manifests", "core RewriteManifests, clustered by partition"),
      EngineCapability.works(NAME, "iceberg", "expire", "core ExpireSnapshots, deletes exactly the previewed files"),
      EngineCapability.works(NAME, "iceberg", "remove-orphans", "fenced: StoredFile identity, neighbours, re-read before delete"),
      EngineCapability.works(NAME, "iceberg", "apply-retention", "metadata.json retention properties"),
      EngineCapability.works(NAME, "delta", "compact", "bin-pack per partition, DV purge; Kernel, verified"),
      EngineCapability.works(NAME, "delta", "vacuum", "full mode, tombstones from JSON commits, retention check"),
      EngineCapability.works(NAME, "delta", "checkpoint", "Kernel checkpoint"),
      EngineCapability.works(NAME, "delta", "cleanup-log", "log entries before an old complete checkpoint"));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<EngineCapability> capabilities() {
    return CAPABILITIES;
  }

  @Override
  public ExecutionEngine open(EngineSettings settings) {
    if (!settings.values().isEmpty()) {
      settings.rejectUnknown(java.util.Set.of(), java.util.Set.of());
    }
    return this;
  }

  @Override
  public <T> List<OperationExecutor<?, T>> executors(String format, Class<T> handleType) {
    return List.of();
  }
}
