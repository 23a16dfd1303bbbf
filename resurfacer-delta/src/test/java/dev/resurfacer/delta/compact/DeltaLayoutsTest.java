package dev.resurfacer.delta.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.maintain.DeltaResurfacer;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.layout.Advice;
import dev.resurfacer.layout.ScanReports;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.Maintain;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.report.OperationResult;
import dev.resurfacer.report.RunReport;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.utils.CloseableIterator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * advise on a table delta-spark wrote, from scan reports in the documented format written by hand
 * (Delta readers emit none): the current files' simulation agrees with Kernel's own data skipping,
 * and maintain with {@code compact.layout: auto} z-orders as recommended, cutting the files Kernel plans
 * per query as the simulation said.
 */
class DeltaLayoutsTest {
  @TempDir
  Path dir;

  @Test
  void handWrittenReportsRecommendAZOrderThatLayoutAutoApplies() throws Exception {
    Path t = dir.resolve("events");
    // delta.targetFileSize (Databricks' key, which Delta compaction reads) keeps the test table's
    // files small
    DeltaSpark.session()
        .conf()
        .set("spark.databricks.delta.allowArbitraryProperties.enabled", "true");
    DeltaSpark.sql("CREATE TABLE " + DeltaSpark.table(t)
        + " (id BIGINT, user_id BIGINT, event STRING, payload STRING) USING delta"
        + " TBLPROPERTIES ('delta.targetFileSize' = '65536')");
    DeltaSpark.session().conf().unset("spark.databricks.delta.allowArbitraryProperties.enabled");
    for (int i = 0; i < 12; i++) {
      // every append spans every user_id: no file can be skipped on user_id until the rows are
      // ordered by it
      DeltaSpark.sql("INSERT INTO " + DeltaSpark.table(t) + " SELECT id, CAST(rand(" + i
          + ") * 100000 AS BIGINT),"
          + " CASE WHEN id % 2 = 0 THEN 'view' ELSE 'buy' END, concat('p', CAST(rand(" + (100 + i)
          + ") * 1000000 AS BIGINT))"
          + " FROM range(" + (i * 4000) + ", " + (i * 4000 + 4000) + ")");
    }
    DeltaTable table = DeltaTables.open("raw.events", t.toString(), dir);

    SplittableRandom rnd = new SplittableRandom(3);
    List<Long> users = new ArrayList<>();
    StringBuilder lines = new StringBuilder();
    for (int q = 0; q < 100; q++) {
      long user = rnd.nextInt(100_000);
      users.add(user);
      lines
          .append(
              "{\"format\":\"resurfacer-scan-report\",\"version\":1,\"kind\":\"scan\",\"producer\":\"trino\",\"table\":\"")
          .append(t.toAbsolutePath())
          .append("\",\"time\":\"2026-12-01T10:")
          .append(String.format("%02d", q % 60))
          .append(":00Z\",\"filter\":{\"type\":\"eq\",\"term\":\"user_id\",\"value\":")
          .append(user)
          .append("},\"filter-values\":true,\"data-files-scanned\":12}\n");
    }
    lines.append("a line no producer should write\n");
    Path reports = Files.createDirectories(dir.resolve("reports"));
    Files.writeString(reports.resolve("trino.jsonl"), lines);

    ScanReports.Loaded loaded = ScanReports.read(reports, t.toString());
    assertThat(loaded.scans()).hasSize(100);
    assertThat(loaded.skipped()).isEqualTo(1);
    Advice advice = DeltaLayouts.advise(t.toString(), table, loaded, 0.2);

    // the current files, simulated from their stats, read what Kernel's data skipping plans
    double kernel =
        users.stream().mapToLong(u -> kernelFiles(table, u)).average().orElseThrow();
    assertThat(advice.current().filesPerQuery()).isEqualTo(kernel);
    assertThat(advice.current().filesPerQuery()).isGreaterThan(11);
    assertThat(advice.candidates()).noneMatch(c -> c.strategy().equals("sort"));
    Advice.Recommendation rec = advice.recommendation();
    assertThat(rec).as(advice.reason()).isNotNull();
    assertThat(rec.strategy()).isEqualTo("zorder");
    assertThat(rec.orderBy()).isEqualTo("user_id");
    assertThat(rec.expectedFilesPerQuery() * 3).isLessThan(rec.currentFilesPerQuery());

    // maintain with compact.layout: auto: a preview changes nothing, the run applies the z-order
    // through Delta's compaction
    List<String> before = DeltaSpark.typedRows(t);
    long version = table.latest().getVersion();
    Compact auto = new Compact(
        "binpack",
        null,
        java.util.Map.of(Compact.LAYOUT, "auto", Compact.SCAN_REPORTS, reports.toString()));
    CatalogConfig catalog = new CatalogConfig(
        "deltas",
        CatalogConfig.DELTA,
        null,
        null,
        java.util.Map.of(),
        java.util.Set.of(),
        java.util.Map.of("raw.events", t.toString()));
    try (var r = DeltaResurfacer.connect(catalog, dir)) {
      RunReport preview =
          r.run(MaintenancePlan.of(Maintain.table("raw.events").then(auto)), Mode.PREVIEW);
      assertThat(preview.tables().get(0).operations().get(0).message())
          .startsWith("layout auto: would apply z-order (user_id)");
      assertThat(table.latest().getVersion()).isEqualTo(version);
      RunReport run =
          r.run(MaintenancePlan.of(Maintain.table("raw.events").then(auto)), Mode.COMMIT);
      OperationResult step = run.tables().get(0).operations().get(0);
      assertThat(step.message())
          .startsWith("layout auto: applying z-order (user_id)")
          .contains("rewrote");
      assertThat(step.metrics())
          .containsKeys("layout_gain_pct", "layout_files_per_query_expected_x100");
    }
    assertThat(DeltaSpark.typedRows(t)).isEqualTo(before);
    double after =
        users.stream().mapToLong(u -> kernelFiles(table, u)).average().orElseThrow();
    assertThat(after * 3).isLessThan(kernel);
    assertThat(after)
        .isCloseTo(rec.expectedFilesPerQuery(), org.assertj.core.data.Offset.offset(1.5));
  }

  /** Files Kernel plans for {@code user_id = u}, skipping on the files' stats. */
  private static long kernelFiles(DeltaTable table, long u) {
    Predicate eq = new Predicate("=", new Column("user_id"), Literal.ofLong(u));
    long n = 0;
    try (CloseableIterator<io.delta.kernel.data.FilteredColumnarBatch> batches =
        table.latest().getScanBuilder().withFilter(eq).build().getScanFiles(table.engine())) {
      while (batches.hasNext()) {
        try (CloseableIterator<io.delta.kernel.data.Row> rows = batches.next().getRows()) {
          while (rows.hasNext()) {
            rows.next();
            n++;
          }
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return n;
  }
}
