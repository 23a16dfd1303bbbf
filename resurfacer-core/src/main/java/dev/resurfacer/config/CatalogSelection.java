package dev.resurfacer.config;

import dev.resurfacer.UsageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Decides which catalog a command talks to. Precedence, highest first: ad-hoc flags
 * ({@code --catalog-uri}, {@code --warehouse}, {@code --catalog-name}), {@code RESURFACER_*}
 * environment variables, the named catalog ({@code --catalog}) of the configuration file
 * ({@code --config}, else {@code ./resurfacer.yml}, else {@code ~/.resurfacer.yml}), and finally
 * the embedded default: a SQLite JDBC catalog with a local warehouse under {@code ./resurfacer-data/}.
 *
 * @param configFile {@code --config}, or null
 * @param catalog {@code --catalog}: a catalog named in the configuration file, or null
 * @param catalogName {@code --catalog-name}, or null
 * @param catalogUri {@code --catalog-uri}, or null
 * @param warehouse {@code --warehouse}, or null
 */
public record CatalogSelection(
    String configFile, String catalog, String catalogName, String catalogUri, String warehouse) {

  public static final String DEFAULT_NAME = "resurfacer";

  /** The embedded default rooted at {@code dir}: {@code dir/catalog.db} and {@code dir/warehouse}. */
  public static CatalogConfig embedded(String name, Path dir) {
    Path abs = dir.toAbsolutePath().normalize();
    return CatalogConfig.of(
        name,
        "jdbc",
        "jdbc:sqlite:" + abs.resolve("catalog.db"),
        abs.resolve("warehouse").toString());
  }

  public CatalogConfig resolve(Map<String, String> env, Path workingDir, Path home) {
    CatalogSelection effective = new CatalogSelection(
        first(configFile, env.get("RESURFACER_CONFIG")),
        first(catalog, env.get("RESURFACER_CATALOG")),
        first(catalogName, env.get("RESURFACER_CATALOG_NAME")),
        first(catalogUri, env.get("RESURFACER_CATALOG_URI")),
        first(warehouse, env.get("RESURFACER_WAREHOUSE")));
    return effective.resolveWith(new Secrets(env), workingDir, home);
  }

  /** Loads the configuration file this selection points at, or the empty configuration. */
  public ResurfacerConfig loadConfig(Secrets secrets, Path workingDir, Path home) {
    Path p = configPath(workingDir, home);
    return p == null ? ResurfacerConfig.empty() : ConfigFile.load(p, secrets);
  }

  /** The configuration file this selection reads, or null when there is none. */
  public Path configPath(Path workingDir, Path home) {
    if (configFile != null) {
      Path p = workingDir.resolve(configFile);
      if (!Files.isRegularFile(p)) {
        throw new UsageException("configuration file " + configFile + " does not exist");
      }
      return p;
    }
    for (Path p :
        new Path[] {workingDir.resolve("resurfacer.yml"), home.resolve(".resurfacer.yml")}) {
      if (Files.isRegularFile(p)) {
        return p;
      }
    }
    return null;
  }

  private CatalogConfig resolveWith(Secrets secrets, Path workingDir, Path home) {
    if (catalogUri != null) {
      String name = catalogName == null ? DEFAULT_NAME : catalogName;
      String type;
      if (catalogUri.startsWith("jdbc:")) {
        type = "jdbc";
      } else if (catalogUri.startsWith("http://") || catalogUri.startsWith("https://")) {
        type = "rest";
      } else {
        throw new UsageException("--catalog-uri must start with jdbc: or http(s):// (got '"
            + Secrets.redactUri(catalogUri) + "')");
      }
      return CatalogConfig.of(name, type, catalogUri, warehouse);
    }
    ResurfacerConfig config = loadConfig(secrets, workingDir, home);
    CatalogConfig chosen;
    if (catalog != null) {
      chosen = config.catalog(catalog);
    } else if (config.defaultCatalog() != null) {
      chosen = config.catalog(config.defaultCatalog());
    } else {
      chosen = embedded(
          catalogName == null ? DEFAULT_NAME : catalogName, workingDir.resolve("resurfacer-data"));
    }
    return warehouse == null ? chosen : chosen.withWarehouse(warehouse);
  }

  private static String first(String a, String b) {
    return a != null ? a : b;
  }
}
