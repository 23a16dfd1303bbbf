package dev.resurfacer.iceberg.orphans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.storage.StorageFences;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Attacks that held, kept as regressions: identity-partition values that Iceberg percent-encodes
 * into directory names ({@code a:b}, {@code é}, a space, {@code %}, {@code +}), with a real orphan
 * beside them that must still go; a neighbour whose manifests name files inside this table as
 * {@code file:///...}; and a table registered a second time under another name, then committed to
 * through that name.
 */
class EncodedNamesAndSchemeSpellingsAttackTest {
  @TempDir
  Path dir;

  final AliasAttackTest h = new AliasAttackTest();

  @BeforeEach
  void open() throws Exception {
    h.dir = dir;
    h.open();
  }

  @AfterEach
  void close() throws Exception {
    h.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"a:b", "é", "two words", "100%", "a+b", "x%41y", "..", "a/b"})
  void encodedPartitionValuesAreKeptAndARealOrphanBesideThemGoes(String value) throws Exception {
    Table a = h.create(h.catalog, "a", null);
    for (String v : List.of(value, "plain")) {
      a.newAppend()
          .appendFile(
              TableWrites.writeData(a, OrphanRemovalTest.rows(v.length(), 5, v)).get(0))
          .commit();
    }
    DataFile live = a.currentSnapshot().addedDataFiles(a.io()).iterator().next();
    a.refresh();
    Path partitionDir = null;
    for (var t : a.newScan().planFiles()) {
      Path p = Path.of(t.file().location().replaceFirst("^file:/*", "/")).getParent();
      if (!p.getFileName().toString().equals("category=plain")) {
        partitionDir = p;
      }
    }
    assertThat(partitionDir).isNotNull();
    Path orphan = OrphanRemovalTest.plant(
        partitionDir.resolve("orphan.parquet"), OrphanRemovalTest.TEN_DAYS_AGO);
    Path literal = OrphanRemovalTest.plant(
        AliasAttackTest.dir(a)
            .resolve("data/category=" + value.replace("/", "_") + "-literal/x.parquet"),
        OrphanRemovalTest.TEN_DAYS_AGO);
    h.capture();

    h.sweep(h.catalog, a, StorageFences.forCatalogs(List.of(h.config), null));

    assertThat(orphan).doesNotExist();
    assertThat(literal).doesNotExist();
    assertThat(live).isNotNull();
    h.assertNothingLost();
  }

  @Test
  void aNeighbourNamingFilesHereAsFileTripleSlashIsSeen() throws Exception {
    Table a = h.filled(h.catalog, "a", null);
    Table b = h.create(h.catalog, "b", null);
    DataFile written =
        TableWrites.writeData(b, OrphanRemovalTest.rows(0, 5, "a")).get(0);
    Path inA = AliasAttackTest.dir(a).resolve("data/category=a/from-b.parquet");
    Files.move(Path.of(written.location().replaceFirst("^file:/*", "/")), inA);
    b.newAppend()
        .appendFile(
            DataFiles.builder(b.spec()).copy(written).withPath("file://" + inA).build())
        .commit();
    h.capture();

    assertThatThrownBy(
            () -> h.sweep(h.catalog, a, StorageFences.forCatalogs(List.of(h.config), null)))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("references files in");
    h.assertNothingLost();
  }

  @Test
  void aTableRegisteredTwiceAndCommittedToUnderTheSecondNameIsSeen() throws Exception {
    Table a = h.filled(h.catalog, "a", null);
    String metadata =
        ((org.apache.iceberg.HasTableOperations) a).operations().current().metadataFileLocation();
    Table twin = h.catalog.registerTable(TableIdentifier.of("db", "twin"), metadata);
    Path orphan = h.plantOrphan(a);
    h.capture();
    OrphanReport same = h.sweep(
        h.catalog,
        a,
        StorageFences.forCatalogs(List.of(h.config), null)); // same metadata: the table itself
    assertThat(orphan).doesNotExist();

    h.fill(twin); // the twin now references files in a's directory that a does not
    h.capture();
    assertThatThrownBy(
            () -> h.sweep(h.catalog, a, StorageFences.forCatalogs(List.of(h.config), null)))
        .isInstanceOf(SafetyRefusal.class);
    assertThat(same).isNotNull();
    h.assertNothingLost();
  }
}
