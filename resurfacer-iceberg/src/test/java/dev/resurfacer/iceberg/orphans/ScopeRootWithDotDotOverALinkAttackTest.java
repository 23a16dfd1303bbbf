package dev.resurfacer.iceberg.orphans;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code write.data.path = <location>/lnk/../data} with {@code lnk -> <dir>/elsewhere/x}: Hadoop
 * writes the table's data to {@code <location>/data}, but the scope root was resolved to the
 * kernel's meaning, {@code <dir>/elsewhere/data}, and listed. On a table without snapshots no
 * reference has to be found in the listing, so every old file there — nothing to do with the
 * table — was deleted as an orphan.
 */
class ScopeRootWithDotDotOverALinkAttackTest {
  @TempDir
  Path dir;

  JdbcCatalog catalog;

  @BeforeEach
  void open() {
    catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
  }

  @AfterEach
  void close() throws Exception {
    catalog.close();
  }

  @Test
  void aScopeRootWithDotDotOverALinkIsNeverListedUnderTheKernelsMeaning() throws Exception {
    Table a = new AliasAttackTest().create(catalog, "a", null);
    Path loc = AliasAttackTest.dir(a).toRealPath();
    Path target = Files.createDirectories(dir.resolve("elsewhere/x"));
    Files.createSymbolicLink(loc.resolve("lnk"), target);
    Path precious = OrphanRemovalTest.plant(
        dir.resolve("elsewhere/data/precious.csv"), OrphanRemovalTest.TEN_DAYS_AGO);
    a.updateProperties()
        .set(TableProperties.WRITE_DATA_LOCATION, loc + "/lnk/../data")
        .commit();

    try {
      OrphanRemovalSeams.clock(
              OrphanRemoval.of(catalog, TableIdentifier.of("db", "a"), a).olderThan(Duration.ZERO),
              Clock.offset(Clock.systemUTC(), Duration.ofHours(1)))
          .execute();
    } catch (SafetyRefusal refused) {
      // refusing is the expected answer
    }

    assertThat(precious)
        .as("a file outside the table, in the kernel's reading of write.data.path")
        .exists();
  }
}
