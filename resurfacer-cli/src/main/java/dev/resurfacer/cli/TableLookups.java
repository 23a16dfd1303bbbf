package dev.resurfacer.cli;

import dev.resurfacer.dispatch.TableLookup;

/** What a command's TABLE argument and catalog flags name, for {@link dev.resurfacer.dispatch.Dispatcher} to resolve by the one format rule. */
final class TableLookups {
  private TableLookups() {}

  /** What the TABLE argument and the catalog flags name, for the dispatcher to resolve. */
  static TableLookup lookup(CatalogOptions options, CliContext ctx, String target) {
    return new TableLookup(
        target,
        options.tableConfig(ctx),
        () -> options.resolve(ctx),
        ctx.workingDir(),
        chosen -> options.fences(ctx, chosen));
  }

  /**
   * As {@link #lookup}, for a verb no fence applies to (one that changes nothing, one that deletes no file it
   * has not written itself, as {@code rewrite-manifests}, or {@code restore-orphans}, which only puts back
   * what a fenced run moved): no fences are read.
   */
  static TableLookup readOnlyLookup(CatalogOptions options, CliContext ctx, String target) {
    TableLookup full = lookup(options, ctx, target);
    return new TableLookup(
        full.target(),
        full.config(),
        full.chosenCatalog(),
        full.workingDir(),
        chosen -> dev.resurfacer.storage.StorageFences.none());
  }
}
