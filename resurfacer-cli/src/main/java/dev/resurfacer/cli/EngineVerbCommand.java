package dev.resurfacer.cli;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** A verb on one {@code namespace.table} that previews unless {@code --yes} and that {@code --engine} may send to another engine. */
abstract class EngineVerbCommand extends TableCommand {
  @Mixin
  ActOptions act;

  @Mixin
  EngineOptions engineOptions;

  @Parameters(paramLabel = "TABLE", description = "namespace.table")
  String tableName;

  EngineVerbCommand(CliContext ctx) {
    super(ctx);
  }
}
