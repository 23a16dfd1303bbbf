package dev.resurfacer.it.jar;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Invariants;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.testing.TableState;
import dev.resurfacer.it.child.ChildCli;
import dev.resurfacer.it.crash.EventsHistory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * resurfacer-local.jar, as built (without the Google Cloud Storage and Azure SDKs): a local table is
 * described and compacted with its content unchanged; a gs:// or Azure table, Iceberg or Delta, is
 * refused in one line with exit 2 and nothing changed, not failed halfway in a NoClassDefFoundError.
 */
class LocalJarTest {
  @TempDir
  Path dir;

  @Test
  void describesAndCompactsALocalTable() {
    Path catalogDir = dir.resolve("catalog");
    EventsHistory.build(catalogDir, 6, 0);
    TableState before = state(catalogDir);
    ChildCli cli = new ChildCli(dir.resolve("run"), Map.of(), ChildCli.localJar());

    ChildCli.Result describe = cli.run(command("describe", catalogDir));
    assertThat(describe.exitCode()).as(describe.err()).isZero();
    assertThat(describe.out()).contains("db.events");

    ChildCli.Result compact =
        cli.run(command("compact", catalogDir, "--yes", "--rewrite-all", "--min-input-files", "2"));
    assertThat(compact.exitCode()).as(compact.out() + compact.err()).isZero();
    JdbcCatalog catalog = SqliteCatalogs.create(EventsHistory.CATALOG, catalogDir);
    try {
      Table table = Invariants.sameRowsAndNothingMissing(catalog, EventsHistory.ID, before);
      assertThat(TableState.metadataLocation(table)).isNotEqualTo(before.metadataLocation());
      assertThat(table.currentSnapshot().operation()).isEqualTo("replace");
    } finally {
      catalog.close();
    }
  }

  @Test
  void refusesCloudTablesInOneLine() throws Exception {
    Path catalogDir = dir.resolve("catalog");
    EventsHistory.build(catalogDir, 6, 0);
    ChildCli cli = new ChildCli(dir.resolve("run"), Map.of(), ChildCli.localJar());
    List<String> refusals = new ArrayList<>();
    for (String location :
        List.of("gs://lake/wh/db/events", "abfss://lake@acct.dfs.core.windows.net/wh/db/events")) {
      // an Iceberg table of the catalog whose metadata is in that storage
      String metadata = location + "/metadata/00001-x.metadata.json";
      setMetadataLocation(catalogDir, metadata);
      ChildCli.Result iceberg = cli.run(command("describe", catalogDir));
      refusals.add(refusal(iceberg, metadata));
      assertThat(metadataLocation(catalogDir)).isEqualTo(metadata);
      // a Delta table by its path
      refusals.add(refusal(cli.run("describe", location), location));
    }
    assertThat(refusals).hasSize(4).allSatisfy(r -> assertThat(r).contains("resurfacer.jar"));
    assertThat(refusals.get(0)).contains("no Google Cloud Storage support");
    assertThat(refusals.get(3)).contains("no Azure storage support");
  }

  private static String refusal(ChildCli.Result run, String location) {
    assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().lines()).as(run.err()).hasSize(1);
    assertThat(run.err())
        .startsWith("error: " + location + ": this build has no ")
        .doesNotContain("NoClassDefFound");
    return run.err();
  }

  private static String[] command(String verb, Path catalogDir, String... more) {
    List<String> out = new ArrayList<>(List.of(verb, "db.events"));
    out.addAll(List.of(EventsHistory.catalogFlags(catalogDir)));
    out.addAll(List.of(more));
    return out.toArray(String[]::new);
  }

  private static TableState state(Path catalogDir) {
    JdbcCatalog catalog = SqliteCatalogs.create(EventsHistory.CATALOG, catalogDir);
    try {
      return TableState.capture(catalog.loadTable(EventsHistory.ID));
    } finally {
      catalog.close();
    }
  }

  private static void setMetadataLocation(Path catalogDir, String location) throws Exception {
    try (Connection c = DriverManager.getConnection(SqliteCatalogs.uri(catalogDir));
        PreparedStatement s =
            c.prepareStatement("UPDATE iceberg_tables SET metadata_location = ?")) {
      s.setString(1, location);
      assertThat(s.executeUpdate()).isEqualTo(1);
    }
  }

  private static String metadataLocation(Path catalogDir) throws Exception {
    try (Connection c = DriverManager.getConnection(SqliteCatalogs.uri(catalogDir));
        PreparedStatement s = c.prepareStatement("SELECT metadata_location FROM iceberg_tables");
        ResultSet r = s.executeQuery()) {
      assertThat(r.next()).isTrue();
      return r.getString(1);
    }
  }
}
