package dev.resurfacer.cli;

import dev.resurfacer.UsageException;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.maintain.DeltaTarget;
import java.util.Optional;

/**
 * For the verbs that exist only for Delta tables ({@code vacuum}, {@code checkpoint}, {@code cleanup-log}): the
 * Delta table a command's TABLE argument names, a name a {@code type: delta} catalog of the configuration maps
 * or a location (a path or {@code file:} URI) holding a {@code _delta_log}.
 */
final class DeltaTargets {
  private DeltaTargets() {}

  static Optional<DeltaTable> find(CatalogOptions options, CliContext ctx, String target) {
    return DeltaTarget.find(TableLookups.lookup(options, ctx, target)).map(DeltaTarget::table);
  }

  /** For verbs that exist only for Delta tables. */
  static DeltaTable require(CatalogOptions options, CliContext ctx, String target, String verb, String icebergAlternative) {
    return find(options, ctx, target).orElseThrow(() -> new UsageException(verb + " works on Delta tables: '" + target
        + "' is neither a table of a delta catalog in the configuration nor a path" + icebergAlternative));
  }
}
