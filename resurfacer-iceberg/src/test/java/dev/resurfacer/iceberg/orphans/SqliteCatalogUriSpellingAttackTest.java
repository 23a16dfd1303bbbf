package dev.resurfacer.iceberg.orphans;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.iceberg.catalog.Catalogs;
import dev.resurfacer.storage.StorageFences;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The SQLite catalog is protected by the file its {@code jdbc:sqlite:} URI names. SQLite reads a
 * {@code file:} URI as a URI ({@code file://localhost/abs}, {@code file:///abs}, percent-escapes);
 * the protection read it as a bare path, so the database it protected was not the one in use, and
 * with the catalog inside the table location, remove-orphans deleted the catalog.
 */
class SqliteCatalogUriSpellingAttackTest {
  @TempDir
  Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"file://localhost%s", "file://%s", "file:%s?mode=rwc"})
  void theCatalogDatabaseIsProtectedHoweverItsUriIsSpelled(String spelling) throws Exception {
    Path root = dir.resolve("t").toAbsolutePath();
    java.nio.file.Files.createDirectories(root);
    String uri = "jdbc:sqlite:" + String.format(spelling, root.resolve("catalog.db"));
    JdbcCatalog inside = new JdbcCatalog();
    inside.setConf(Catalogs.localHadoopConf());
    inside.initialize(
        "inside",
        Map.of(CatalogProperties.URI, uri, CatalogProperties.WAREHOUSE_LOCATION, root.toString()));
    try (inside) {
      inside.createNamespace(Namespace.of("db"));
      Table a = new AliasAttackTest().create(inside, "a", root.toString());
      AliasAttackTest.fill(a);
      assertThat(root.resolve("catalog.db"))
          .as("SQLite opened the file the URI names")
          .exists();
      CatalogConfig config = CatalogConfig.of("inside", "jdbc", uri, root.toString());

      try {
        OrphanRemovalSeams.clock(
                OrphanRemoval.of(inside, TableIdentifier.of("db", "a"), a)
                    .fences(StorageFences.forCatalogs(List.of(config), null))
                    .olderThan(Duration.ZERO),
                Clock.offset(Clock.systemUTC(), Duration.ofHours(1)))
            .execute();
      } catch (dev.resurfacer.SafetyRefusal refused) {
        // refusing is fine
      }

      assertThat(root.resolve("catalog.db")).exists();
      assertThat(inside.listTables(Namespace.of("db"))).contains(TableIdentifier.of("db", "a"));
    }
  }
}
