package dev.resurfacer.iceberg.orphans;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.iceberg.testing.Invariants;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.testing.TableState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code <location>/.resurfacer-quarantine} is a symbolic link to a directory outside the table (a
 * neighbour's storage, a shared scratch space). The listing rightly never follows it, but the
 * quarantine wrote its manifest and moved the candidates through it: files of this table left its
 * scope, and later purges (which never follow a link) can never delete them.
 */
class QuarantineDirectoryThroughALinkAttackTest {
  static final TableIdentifier ID = TableIdentifier.of("db", "a");

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
  void aQuarantineReachedThroughALinkNeverMovesFilesOutOfTheTable() throws Exception {
    Table a = new AliasAttackTest().create(catalog, "a", null);
    AliasAttackTest.fill(a);
    Path orphan = AliasAttackTest.plantOrphan(a);
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    Files.createSymbolicLink(AliasAttackTest.dir(a).resolve(".resurfacer-quarantine"), elsewhere);
    TableState state = TableState.capture(a);

    try {
      OrphanRemovalSeams.clock(
              OrphanRemoval.of(catalog, ID, a).olderThan(Duration.ZERO).quarantine(true),
              Clock.offset(Clock.systemUTC(), Duration.ofHours(1)))
          .execute();
    } catch (SafetyRefusal refused) {
      // refusing is a fine answer
    }

    try (Stream<Path> s = Files.walk(elsewhere)) {
      assertThat(s.filter(Files::isRegularFile))
          .as("files written outside the table")
          .isEmpty();
    }
    Invariants.sameRowsAndNothingMissing(catalog, ID, state);
    assertThat(orphan).exists();
  }
}
