package dev.resurfacer.iceberg.orphans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.testing.Invariants;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.testing.TableState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two-phase removal: quarantine, restore, purge — on a real table with real files. */
class QuarantineTest {
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

  OrphanRemoval removal(Table t, Duration clockAhead) {
    return OrphanRemovalSeams.clock(
        OrphanRemoval.of(catalog, ID, t).olderThan(Duration.ZERO).quarantine(true),
        Clock.offset(Clock.systemUTC(), clockAhead));
  }

  @Test
  void quarantineThenRestorePutsEveryFileBackAndTheRowsAreTheSame() throws Exception {
    Table t = new AliasAttackTest().create(catalog, "a", null);
    AliasAttackTest.fill(t);
    Path orphan = AliasAttackTest.plantOrphan(t);
    Path other = OrphanRemovalTest.plant(
        AliasAttackTest.dir(t).resolve("metadata/abandoned.metadata.json"),
        OrphanRemovalTest.TEN_DAYS_AGO);
    String content = Files.readString(orphan);
    TableState state = TableState.capture(t);

    OrphanReport q = removal(t, Duration.ofHours(1)).execute();

    assertThat(q.removed().quarantineRun()).isNotNull();
    assertThat(q.removed().quarantined().files()).isEqualTo(2);
    assertThat(q.removed().deleted().files()).isZero();
    assertThat(orphan).doesNotExist();
    assertThat(other).doesNotExist();
    Path held = AliasAttackTest.dir(t)
        .resolve(".resurfacer-quarantine")
        .resolve(q.removed().quarantineRun());
    assertThat(held.resolve("manifest.jsonl")).exists();
    Invariants.sameRowsAndNothingMissing(catalog, ID, state);

    // a second run does not list the quarantine as orphans
    OrphanReport again = removal(t, Duration.ofHours(1)).plan();
    assertThat(again.census().orphans().files()).isZero();

    RestoreReport preview = OrphanRemoval.restore(t, "db.a", q.removed().quarantineRun(), false);
    assertThat(preview.files()).isEqualTo(2);
    assertThat(orphan).doesNotExist();
    RestoreReport restored = OrphanRemoval.restore(t, "db.a", q.removed().quarantineRun(), true);
    assertThat(restored.files()).isEqualTo(2);
    assertThat(restored.conflicts()).isEmpty();
    assertThat(Files.readString(orphan)).isEqualTo(content);
    assertThat(other).exists();
    assertThat(held).doesNotExist();
    Invariants.sameRowsAndNothingMissing(catalog, ID, state);
    assertThat(Rows.sortedStrings(catalog.loadTable(ID)))
        .isEqualTo(state.refRows().get("main"));
  }

  @Test
  void laterRunsPurgeQuarantinesPastTheirRetentionOnly() throws Exception {
    Table t = new AliasAttackTest().create(catalog, "a", null);
    AliasAttackTest.fill(t);
    Path orphan = AliasAttackTest.plantOrphan(t);
    OrphanReport q = removal(t, Duration.ofHours(1)).execute();
    Path held = AliasAttackTest.dir(t)
        .resolve(".resurfacer-quarantine")
        .resolve(q.removed().quarantineRun());
    assertThat(held).exists();

    OrphanReport young =
        removal(t, Duration.ofDays(3)).quarantineRetention(Duration.ofDays(7)).execute();
    assertThat(young.removed().purgedQuarantine().files()).isZero();
    assertThat(held).exists();

    OrphanReport old =
        removal(t, Duration.ofDays(8)).quarantineRetention(Duration.ofDays(7)).execute();
    assertThat(old.removed().purgedQuarantine().files()).isEqualTo(2); // the file and the manifest
    assertThat(held).doesNotExist();
    assertThat(orphan).doesNotExist();
  }

  @Test
  void restoreRefusesAnUnknownOrMalformedRun() {
    Table t = new AliasAttackTest().create(catalog, "a", null);
    assertThatThrownBy(() -> OrphanRemoval.restore(t, "db.a", "../../etc", true))
        .isInstanceOf(UsageException.class);
    assertThatThrownBy(() -> OrphanRemoval.restore(t, "db.a", "20260101T000000000Z", true))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("no quarantine run");
  }
}
