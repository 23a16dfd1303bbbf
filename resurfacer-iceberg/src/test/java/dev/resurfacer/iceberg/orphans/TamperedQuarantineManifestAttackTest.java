package dev.resurfacer.iceberg.orphans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.iceberg.testing.Invariants;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.testing.TableState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quarantine manifest lives in the table's own storage, writable by anyone who can write there.
 * restore-orphans trusted its {@code from} and {@code to} fields as written: a line whose
 * {@code to} names a live file (of this table or of any other) and whose {@code from} names a free
 * path anywhere made restore move that live file away.
 */
class TamperedQuarantineManifestAttackTest {
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

  static String liveDataFile(Table t) throws Exception {
    try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
      return tasks.iterator().next().file().location();
    }
  }

  @Test
  void restoreNeverMovesAFileNamedByATamperedManifest() throws Exception {
    AliasAttackTest helper = new AliasAttackTest();
    Table a = helper.create(catalog, "a", null);
    AliasAttackTest.fill(a);
    Table b = helper.create(catalog, "b", null);
    AliasAttackTest.fill(b);
    AliasAttackTest.plantOrphan(a);
    TableState stateA = TableState.capture(a);
    TableState stateB = TableState.capture(b);

    OrphanReport q = OrphanRemovalSeams.clock(
            OrphanRemoval.of(catalog, TableIdentifier.of("db", "a"), a)
                .olderThan(Duration.ZERO)
                .quarantine(true),
            Clock.offset(Clock.systemUTC(), Duration.ofHours(1)))
        .execute();
    assertThat(q.removed().quarantined().files()).isEqualTo(1);

    // the tampering: two more lines, one taking a live file of a neighbour out of its table, one of
    // a itself
    Path manifest = AliasAttackTest.dir(a)
        .resolve(".resurfacer-quarantine")
        .resolve(q.removed().quarantineRun())
        .resolve("manifest.jsonl");
    String neighbours = liveDataFile(b);
    String own = liveDataFile(a);
    Path outside = dir.resolve("stolen");
    List<String> lines = new ArrayList<>(Files.readAllLines(manifest));
    lines.add("{\"from\":\"" + outside.resolve("b.parquet") + "\",\"to\":\"" + neighbours
        + "\",\"size\":1}");
    lines.add("{\"from\":\"" + AliasAttackTest.dir(a).resolve("data/moved-away.parquet")
        + "\",\"to\":\"" + own + "\",\"size\":1}");
    Files.write(manifest, lines);

    try {
      OrphanRemoval.restore(a, "db.a", q.removed().quarantineRun(), true);
    } catch (RuntimeException refused) {
      // refusing the whole run is a fine answer too
    }

    assertThat(Path.of(neighbours.replaceFirst("^file:/*", "/"))).exists();
    assertThat(Path.of(own.replaceFirst("^file:/*", "/"))).exists();
    assertThat(outside).doesNotExist();
    Invariants.sameRowsAndNothingMissing(catalog, TableIdentifier.of("db", "a"), stateA);
    Invariants.sameRowsAndNothingMissing(catalog, TableIdentifier.of("db", "b"), stateB);
  }

  @Test
  void restoreRefusesAManifestWhoseFromLeavesTheTable() throws Exception {
    Table a = new AliasAttackTest().create(catalog, "a", null);
    AliasAttackTest.fill(a);
    AliasAttackTest.plantOrphan(a);
    OrphanReport q = OrphanRemovalSeams.clock(
            OrphanRemoval.of(catalog, TableIdentifier.of("db", "a"), a)
                .olderThan(Duration.ZERO)
                .quarantine(true),
            Clock.offset(Clock.systemUTC(), Duration.ofHours(1)))
        .execute();
    Path manifest = AliasAttackTest.dir(a)
        .resolve(".resurfacer-quarantine")
        .resolve(q.removed().quarantineRun())
        .resolve("manifest.jsonl");
    Path outside = dir.resolve("outside/planted.sh");
    Files.write(
        manifest,
        Files.readString(manifest)
            .replaceAll("\"from\":\"[^\"]*\"", "\"from\":\"" + outside + "\"")
            .getBytes(java.nio.charset.StandardCharsets.UTF_8));

    assertThatThrownBy(() -> OrphanRemoval.restore(a, "db.a", q.removed().quarantineRun(), true))
        .isInstanceOf(RuntimeException.class);
    assertThat(outside).doesNotExist();
  }
}
