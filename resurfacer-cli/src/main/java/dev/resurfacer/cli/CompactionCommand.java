package dev.resurfacer.cli;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** What plan and compact share: the compaction flags and a TABLE of either format. */
abstract class CompactionCommand extends TableCommand {
  /** Named {@code flags}: {@link CompactionFlags#settings} finds the flags the user gave by this mixin name. */
  @Mixin
  CompactionFlags flags;

  @Parameters(
      paramLabel = "TABLE",
      description = "namespace.table, or a Delta table (path or delta-catalog name)")
  String tableName;

  CompactionCommand(CliContext ctx) {
    super(ctx);
  }
}
