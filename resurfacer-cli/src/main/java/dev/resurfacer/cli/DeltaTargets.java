package dev.resurfacer.cli;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogSelection;
import dev.resurfacer.config.Secrets;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.maintain.DeltaTarget;
import dev.resurfacer.dispatch.TableLookup;
import java.util.Optional;

/**
 * Which Delta table a command's TABLE argument names, if any: a name a {@code type: delta} catalog of
 * the configuration maps, or a location (a path or {@code file:} URI) holding a {@code _delta_log}.
 */
final class DeltaTargets {
  private DeltaTargets() {}

  static Optional<DeltaTable> find(CatalogOptions options, CliContext ctx, String target) {
    return DeltaTarget.find(lookup(options, ctx, target)).map(DeltaTarget::table);
  }

  /** What the TABLE argument and the catalog flags name, for the dispatcher to resolve. */
  static TableLookup lookup(CatalogOptions options, CliContext ctx, String target) {
    var config = new CatalogSelection(first(options.configFile, ctx.env().get("RESURFACER_CONFIG")), null, null, null, null)
        .loadConfig(new Secrets(ctx.env()), ctx.workingDir(), ctx.home());
    return new TableLookup(target, config, () -> options.resolve(ctx), ctx.workingDir(), chosen -> options.fences(ctx, chosen));
  }

  /** As {@link #lookup}, for a verb that changes nothing: no fences are read. */
  static TableLookup readOnlyLookup(CatalogOptions options, CliContext ctx, String target) {
    TableLookup full = lookup(options, ctx, target);
    return new TableLookup(full.target(), full.config(), full.chosenCatalog(), full.workingDir(),
        chosen -> dev.resurfacer.storage.StorageFences.none());
  }

  /** For verbs that exist only for Delta tables. */
  static DeltaTable require(CatalogOptions options, CliContext ctx, String target, String verb, String icebergAlternative) {
    return find(options, ctx, target).orElseThrow(() -> new UsageException(verb + " works on Delta tables: '" + target
        + "' is neither a table of a delta catalog in the configuration nor a path" + icebergAlternative));
  }

  private static String first(String a, String b) {
    return a != null ? a : b;
  }
}
