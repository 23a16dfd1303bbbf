package dev.resurfacer.cli;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.CatalogSelection;
import picocli.CommandLine.Option;

/** Catalog selection flags shared by every verb that opens a table. */
public final class CatalogOptions {
  @Option(names = "--config", paramLabel = "FILE", description = "Configuration file (default ./resurfacer.yml, then ~/.resurfacer.yml).")
  String configFile;

  @Option(names = "--catalog", paramLabel = "NAME", description = "A catalog named in the configuration file.")
  String catalog;

  @Option(names = "--catalog-name", paramLabel = "NAME", description = "Name for an ad-hoc catalog given by --catalog-uri.")
  String catalogName;

  @Option(names = "--catalog-uri", paramLabel = "URI", description = "Ad-hoc catalog: jdbc:... (JDBC catalog) or http(s)://... (REST catalog).")
  String catalogUri;

  @Option(names = "--warehouse", paramLabel = "LOCATION", description = "Warehouse location (path, file: or s3:// URI).")
  String warehouse;

  CatalogConfig resolve(CliContext ctx) {
    return new CatalogSelection(configFile, catalog, catalogName, catalogUri, warehouse)
        .resolve(ctx.env(), ctx.workingDir(), ctx.home());
  }
}
