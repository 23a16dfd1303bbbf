package dev.resurfacer.iceberg.orphans;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.expire.ExpireOptions;
import dev.resurfacer.iceberg.expire.SnapshotExpiry;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.testing.TableState;
import dev.resurfacer.iceberg.write.TableWrites;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code ..} that climbs over a symbolic link has two meanings: the kernel's (physical: the link
 * is followed, then {@code ..} leaves its target) and Hadoop's (lexical: {@code Path} normalizes the
 * URI, so {@code wh/lnk/../t/f} is {@code wh/t/f}). Iceberg's local FileIO is Hadoop's, so a file
 * committed as {@code <wh>/lnk/../db/a/data/...} is read from {@code <wh>/db/a/data/...}, while the
 * resolver gave it the key of {@code <target-of-lnk>/../db/a/data/...}. The link need not be in the
 * table's scope at all, so no "symbolic link skipped" warning is printed either.
 */
class DotDotOverALinkAttackTest {
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

  /** {@code <warehouse>/lnk -> <dir>/elsewhere/deep}: {@code lnk/..} is {@code elsewhere} to the kernel, {@code warehouse} to Hadoop. */
  String spelledOverALink(String location) throws Exception {
    Path warehouse = Path.of(SqliteCatalogs.warehouse(dir)).toRealPath();
    Path target = Files.createDirectories(dir.resolve("elsewhere/deep"));
    Path lnk = warehouse.resolve("lnk");
    if (!Files.isSymbolicLink(lnk)) {
      Files.createSymbolicLink(lnk, target);
    }
    String bare = location.replaceFirst("^file:/*", "/");
    Path real = Path.of(bare).toRealPath();
    assertThat(real.startsWith(warehouse)).isTrue();
    return warehouse + "/lnk/.."
        + real.toString().substring(warehouse.toString().length());
  }

  @Test
  void removeOrphansKeepsADataFileSpelledWithDotDotOverALink() throws Exception {
    Table a = new AliasAttackTest().create(catalog, "a", null);
    AliasAttackTest.fill(a);
    DataFile written =
        TableWrites.writeData(a, OrphanRemovalTest.rows(900, 10, "a")).get(0);
    Path physical = Path.of(written.location().replaceFirst("^file:/*", "/"));
    String spelled = spelledOverALink(written.location());
    a.newAppend()
        .appendFile(DataFiles.builder(a.spec()).copy(written).withPath(spelled).build())
        .commit();
    TableState before =
        TableState.capture(a); // Hadoop reads the file through the lexical path: the table is fine
    assertThat(Rows.sortedStrings(a)).anyMatch(r -> r.contains("900"));

    OrphanRemovalSeams.clock(
            OrphanRemoval.of(catalog, ID, a).olderThan(Duration.ZERO),
            Clock.offset(Clock.systemUTC(), Duration.ofHours(1)))
        .execute();

    assertThat(physical).as("the file the current snapshot reads").exists();
    Table reloaded = catalog.loadTable(ID);
    assertThat(Rows.sortedStrings(reloaded)).isEqualTo(before.refRows().get("main"));
  }

  @Test
  void expireKeepsAFileThatARetainedSnapshotReferencesWithoutTheDotDot() throws Exception {
    Table a = new AliasAttackTest().create(catalog, "a", null);
    DataFile written =
        TableWrites.writeData(a, OrphanRemovalTest.rows(0, 10, "a")).get(0);
    Path physical = Path.of(written.location().replaceFirst("^file:/*", "/"));
    DataFile viaLink = DataFiles.builder(a.spec())
        .copy(written)
        .withPath(spelledOverALink(written.location()))
        .build();
    DataFile plain =
        DataFiles.builder(a.spec()).copy(written).withPath(physical.toString()).build();
    a.newAppend().appendFile(viaLink).commit();
    a.newRewrite().deleteFile(viaLink).addFile(plain).commit();
    TableState before = TableState.capture(a);

    SnapshotExpiry.execute(
        SnapshotExpiry.plan("db.a", a, new ExpireOptions(Duration.ZERO, 1, List.of(), false)));

    a.refresh();
    assertThat(a.snapshots()).hasSize(1);
    assertThat(physical).as("the file the retained snapshot reads").exists();
    Snapshot current = a.currentSnapshot();
    assertThat(Rows.sortedStrings(a, current.snapshotId()))
        .isEqualTo(before.refRows().get("main"));
  }
}
