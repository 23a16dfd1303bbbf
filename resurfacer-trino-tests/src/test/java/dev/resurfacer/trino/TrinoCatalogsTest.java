package dev.resurfacer.trino;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.iceberg.testing.Invariants;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.ExpireSnapshots;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Operation;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.RemoveOrphans;
import dev.resurfacer.maintain.RewriteManifests;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.trino.testing.ResurfacerCli;
import dev.resurfacer.trino.testing.ResurfacerCli.Run;
import dev.resurfacer.trino.testing.TrinoLake;
import dev.resurfacer.trino.testing.TrinoTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Trino engine beyond one REST catalog: tables of an Iceberg JDBC catalog on PostgreSQL that
 * Trino exposes as a second catalog of the same server ({@code engines.trino.catalogs.<ours>}),
 * and a Trino user
 * whom Trino's file-based access control denies the table: one line, exit 2, nothing changed.
 */
class TrinoCatalogsTest {
  @RegisterExtension
  static final TrinoLake LAKE = TrinoLake.shared();

  static final TrinoTables REST_TABLES = new TrinoTables(LAKE);
  static final TrinoTables PG_TABLES = new TrinoTables(LAKE, TrinoLake.PG_CATALOG, LAKE::pgCatalog);

  @TempDir
  static Path dir;

  @SuppressWarnings({"unchecked", "rawtypes"})
  static Step run(Operation op, IcebergTable t, Mode mode) throws Exception {
    // the engine's default catalog is the REST one: the pg table is found only through the mapping
    TrinoConnection trino = new TrinoConnection(
        LAKE.trino().jdbcUrl(), TrinoLake.CATALOG, "resurfacer-test", null, null);
    for (OperationExecutor<?, IcebergTable> e :
        IcebergOnTrino.executors(trino, Map.of(LAKE.pgCatalogName(), TrinoLake.PG_CATALOG), null)) {
      if (e.operationType().isInstance(op)) {
        t.table().refresh();
        return ((OperationExecutor) e).execute(op, t, mode);
      }
    }
    throw new AssertionError("no Trino executor for " + op.name());
  }

  @Test
  void everyVerbThroughTrinoOnATableOfThePostgresJdbcCatalog() throws Exception {
    IcebergTable t = PG_TABLES.create("pg_verbs", 3, null);
    assertThat(t.table().location()).startsWith(LAKE.pgWarehouse());
    List<String> trinoBefore = PG_TABLES.trinoRows("pg_verbs");
    List<String> oursBefore = Content.of(t.table());
    assertThat(trinoBefore).hasSize(96);
    long snapshot = t.table().currentSnapshot().snapshotId();

    assertThat(run(Compact.binpack(), t, Mode.PREVIEW).metrics().get("candidate_files"))
        .isEqualTo(6);
    t.table().refresh();
    assertThat(t.table().currentSnapshot().snapshotId()).isEqualTo(snapshot);

    Step manifests = run(new RewriteManifests(), t, Mode.COMMIT);
    assertThat(manifests.outcome()).as(manifests.message()).isEqualTo(Outcome.DONE);
    Step compact = run(Compact.binpack(), t, Mode.COMMIT);
    assertThat(compact.outcome()).as(compact.message()).isEqualTo(Outcome.DONE);
    assertThat(IcebergOnTrinoTest.dataFiles(t.table())).isEqualTo(2);
    String stray = IcebergOnTrinoTest.strayFile(LAKE, t.table(), Duration.ofDays(2));
    Step expire = run(new ExpireSnapshots(Duration.ZERO, null), t, Mode.COMMIT);
    assertThat(expire.outcome()).as(expire.message()).isEqualTo(Outcome.DONE);
    Step orphans = run(new RemoveOrphans(Duration.ofHours(1)), t, Mode.COMMIT);
    assertThat(orphans.outcome()).as(orphans.message()).isEqualTo(Outcome.DONE);
    assertThat(orphans.metrics().get("deleted_files")).isEqualTo(1);

    t.table().refresh();
    assertThat(IcebergOnTrinoTest.count(t.table().snapshots())).isEqualTo(1);
    assertThat(PG_TABLES.trinoRows("pg_verbs")).isEqualTo(trinoBefore);
    assertThat(Content.of(t.table())).isEqualTo(oursBefore);
    Set<String> objects = LAKE.s3().objects(t.table().location());
    assertThat(objects).doesNotContain(stray).containsAll(Invariants.reachable(t.table()));
  }

  @Test
  void aUserTrinoDeniesTheTableIsOneLineExitTwoAndNothingChanges() throws Exception {
    IcebergTable t = REST_TABLES.create("guarded", 2, null);
    String metadata = TrinoCliTest.metadata(t);
    Path config = Files.writeString(
        dir.resolve("guarded.yml"),
        Files.readString(TrinoCliTest.config(
            LAKE,
            dir,
            "    url: " + LAKE.trino().jdbcUrl() + "\n    catalog: " + TrinoLake.GUARDED_CATALOG
                + "\n    user: " + TrinoLake.BLIND_USER + "\n")));

    for (String verb : List.of("compact", "rewrite-manifests")) {
      Run denied = ResurfacerCli.run(
          dir, config, "lake", Map.of(), verb, "ops.guarded", "--engine", "trino", "--yes");
      assertThat(denied.exit()).as(denied.err()).isEqualTo(2);
      assertThat(denied.err())
          .contains("denied read ops.guarded (needed to verify the rewrite) to user blind")
          .contains("Access Denied: Cannot select from")
          .doesNotContain("\n");
    }
    assertThat(TrinoCliTest.metadata(t)).isEqualTo(metadata);
  }
}
