package dev.resurfacer.cli;

import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.engines.ExecutionEngines;
import picocli.CommandLine.Option;

/** {@code --engine}: who executes. Default: the table's policy ({@code engine:} in resurfacer.yml), else local. */
final class EngineOptions {
  @Option(
      names = "--engine",
      paramLabel = "NAME",
      description =
          "Who executes: local (this JVM), or an engine configured under engines: in resurfacer.yml, e.g. spark or trino "
              + "(default: the table's policy engine, else local). See 'resurfacer engines'.")
  String engine;

  /** The engine for {@code table}: the flag, else the table's effective policy, else local; an unknown name is a usage error. */
  String resolve(CliContext ctx, CatalogOptions catalogOptions, String table) {
    String name = engine;
    if (name == null) {
      ResurfacerConfig config = catalogOptions.config(ctx);
      name = table == null
          ? ExecutionEngines.LOCAL
          : config.policies().effective(table).policy().engine();
    }
    ctx.engine(name);
    return name;
  }
}
