package dev.resurfacer.cli;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.CatalogSelection;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.config.Secrets;
import dev.resurfacer.delta.table.DeltaDiscovery;
import dev.resurfacer.storage.StorageFences;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/** Catalog selection flags shared by every verb that opens a table. */
public final class CatalogOptions {
  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "Configuration file (default ./resurfacer.yml, then ~/.resurfacer.yml).")
  String configFile;

  @Option(
      names = "--catalog",
      paramLabel = "NAME",
      description = "A catalog named in the configuration file.")
  String catalog;

  @Option(
      names = "--catalog-name",
      paramLabel = "NAME",
      description = "Name for an ad-hoc catalog given by --catalog-uri.")
  String catalogName;

  @Option(
      names = "--catalog-uri",
      paramLabel = "URI",
      description = "Ad-hoc catalog: jdbc:... (JDBC catalog) or http(s)://... (REST catalog).")
  String catalogUri;

  @Option(
      names = "--warehouse",
      paramLabel = "LOCATION",
      description = "Warehouse location (path, file: or s3:// URI).")
  String warehouse;

  /**
   * The fences orphan removal and vacuum need: every table of {@code chosen} (when not null: an Iceberg
   * table may sit inside a Delta table too) and of every catalog in the configuration file, and the files
   * no run may delete (SQLite catalogs, the configuration file).
   */
  StorageFences fences(CliContext ctx, CatalogConfig chosen) {
    CatalogSelection selection = tableConfigSelection(ctx);
    Path config = selection.configPath(ctx.workingDir(), ctx.home());
    List<CatalogConfig> all = new ArrayList<>();
    if (chosen != null) {
      all.add(chosen);
    }
    all.addAll(selection
        .loadConfig(new Secrets(ctx.env()), ctx.workingDir(), ctx.home())
        .catalogs()
        .values());
    return StorageFences.forCatalogs(all, config, ctx.workingDir());
  }

  /**
   * The fences of a run over {@code catalogs} (maintain, serve): every table of them and of every other
   * catalog of {@code config}, as a table of one catalog may sit in another's storage (Delta ones included).
   * Catalogs whose storage overlaps are refused first.
   */
  StorageFences fencesOfRun(CliContext ctx, ResurfacerConfig config, List<CatalogConfig> catalogs) {
    Map<String, CatalogConfig> known = new LinkedHashMap<>();
    catalogs.forEach(c -> known.put(c.name(), c));
    config.catalogs().values().forEach(c -> known.putIfAbsent(c.name(), c));
    DeltaDiscovery.refuseOverlaps(known.values(), ctx.workingDir());
    return StorageFences.forCatalogs(
        List.copyOf(known.values()),
        new CatalogSelection(configFile, null, null, null, null)
            .configPath(ctx.workingDir(), ctx.home()),
        ctx.workingDir());
  }

  /** The configuration file --config names (else ./resurfacer.yml, then ~/.resurfacer.yml). */
  ResurfacerConfig config(CliContext ctx) {
    return new CatalogSelection(configFile, null, null, null, null)
        .loadConfig(new Secrets(ctx.env()), ctx.workingDir(), ctx.home());
  }

  /**
   * The configuration a verb on one table reads: the file --config names, else RESURFACER_CONFIG (else
   * ./resurfacer.yml, then ~/.resurfacer.yml).
   */
  ResurfacerConfig tableConfig(CliContext ctx) {
    return tableConfigSelection(ctx)
        .loadConfig(new Secrets(ctx.env()), ctx.workingDir(), ctx.home());
  }

  private CatalogSelection tableConfigSelection(CliContext ctx) {
    return new CatalogSelection(
        configFile != null ? configFile : ctx.env().get("RESURFACER_CONFIG"),
        null,
        null,
        null,
        null);
  }

  CatalogConfig resolve(CliContext ctx) {
    return new CatalogSelection(configFile, catalog, catalogName, catalogUri, warehouse)
        .resolve(ctx.env(), ctx.workingDir(), ctx.home());
  }
}
