package dev.resurfacer.iceberg.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Fleet;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.maintain.Maintain;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Resurfacer;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.report.RunReport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The library example of docs/user-guide.md and docs/design.md, statement for statement, on a real
 * catalog: if the API it shows changes, this stops compiling.
 */
class LibraryExampleTest {
  @TempDir
  Path dir;

  @Test
  void theDocumentedExampleRunsAndKeepsEveryRow() throws Exception {
    try (JdbcCatalog setup = SqliteCatalogs.create("lake", dir.resolve("lake"))) {
      setup.createNamespace(Namespace.of("analytics"));
      Fleet.smallFiles(setup, "raw", "clicks", 6);
      Fleet.smallFiles(setup, "analytics", "events", 6);
    }
    JdbcCatalog catalogConfig = SqliteCatalogs.create("lake", dir.resolve("lake"));
    Table events = catalogConfig.loadTable(TableIdentifier.of("analytics", "events"));
    List<String> before = Rows.sortedStrings(events);

    // --- the example, as documented ---
    var plan = MaintenancePlan.of(
        Maintain.namespace("raw").compact().expireSnapshots(Duration.ofDays(5), 1),
        Maintain.table("analytics.events")
            .compact(Map.of("min-input-files", "2"))
            .removeOrphans(Duration.ofDays(3)));
    try (Resurfacer<IcebergTable> r = IcebergResurfacer.connect(catalogConfig).parallel(4)) {
      RunReport report = r.run(plan, Mode.COMMIT); // Mode.PREVIEW changes nothing
      report.raiseIfErrors(); // MaintenanceFailed names each failed or refused table
      // --- end of the example ---
      assertThat(report.tables()).extracting(t -> t.outcome()).containsOnly(Outcome.DONE);
    }
    // the Resurfacer closed the catalog it was given
    try (JdbcCatalog after = SqliteCatalogs.create("lake", dir.resolve("lake"))) {
      Table compacted = after.loadTable(TableIdentifier.of("analytics", "events"));
      assertThat(Rows.sortedStrings(compacted)).isEqualTo(before);
      assertThat(compacted.currentSnapshot().operation()).isEqualTo("replace");
    }
  }
}
