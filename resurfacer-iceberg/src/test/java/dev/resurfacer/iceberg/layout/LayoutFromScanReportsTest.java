package dev.resurfacer.iceberg.layout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.compact.Compaction;
import dev.resurfacer.iceberg.compact.CompactionOptions;
import dev.resurfacer.iceberg.maintain.IcebergResurfacer;
import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.layout.Advice;
import dev.resurfacer.layout.ScanReports;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.Maintain;
import dev.resurfacer.maintain.MaintenancePlan;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.report.OperationResult;
import dev.resurfacer.report.RunReport;
import dev.resurfacer.scanreports.ScanReportCollector;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop end to end at test size: scans planned by Iceberg itself through a catalog whose reporter
 * is the collector; advise from those reports; a plain bin-pack at the recommended size, the same
 * scans again; maintain with {@code compact.layout: auto}, the same scans again; then the measured
 * files per scan, and advise finding nothing left to do.
 */
class LayoutFromScanReportsTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "user_id", Types.LongType.get()),
      Types.NestedField.optional(3, "event", Types.StringType.get()),
      Types.NestedField.optional(4, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(5, "payload", Types.StringType.get()));
  private static final String[] EVENTS = {
    "view", "click", "cart", "buy", "search", "login", "logout", "share"
  };
  private static final LocalDateTime START = LocalDateTime.of(2026, 11, 1, 0, 0);
  private static final long DAY_MICROS = 86_400_000_000L;

  @TempDir
  Path dir;

  @Test
  void reportsRecommendALayoutMaintainAppliesItAndTheNextReportsShowTheEffect() throws Exception {
    Path reports = dir.resolve("reports");
    JdbcCatalog writer = SqliteCatalogs.create("lake", dir.resolve("lake"));
    Table table = eventsTable(writer);
    List<String> content = Content.of(table);

    // the engine side: its own catalog instance, the collector configured by catalog properties
    // only
    JdbcCatalog engine =
        engineCatalog(dir.resolve("lake"), Map.of(ScanReportCollector.DIR, reports.toString()));
    List<Expression> queries = queries(300);
    replay(engine, queries);
    awaitLines(reports, 300);
    // a foreign line and a broken one among the reports: skipped and counted
    Files.writeString(reports.resolve("other.jsonl"), "{\"hello\":1}\nnot json at all\n");

    ScanReports.Loaded first = ScanReports.read(reports, "db.events");
    assertThat(first.scans()).hasSize(300);
    assertThat(first.skipped()).isEqualTo(2);
    Advice advice = IcebergLayouts.advise(
        "db.events", writer.loadTable(TableIdentifier.of("db", "events")), first, 0.2);
    assertThat(advice.columns().get(0).column()).isEqualTo("user_id");
    assertThat(advice.recommendation()).isNotNull();
    Advice.Recommendation rec = advice.recommendation();
    assertThat(rec.orderBy()).contains("user_id");
    long target = rec.targetFileSize();

    // plain bin-pack at the recommended size: the baseline the layout is measured against
    Compaction.execute(Compaction.plan(
        writer.loadTable(TableIdentifier.of("db", "events")),
        CompactionOptions.defaults()
            .withOption("target-file-size-bytes", Long.toString(target))
            .withOption("rewrite-all", "true")));
    replay(engine, queries);
    awaitLines(reports, 600);

    Compact auto = new Compact(
        "binpack", null, Map.of(Compact.LAYOUT, "auto", Compact.SCAN_REPORTS, reports.toString()));
    RunReport run;
    try (var r = IcebergResurfacer.connect(SqliteCatalogs.create("lake", dir.resolve("lake")))) {
      run = r.run(MaintenancePlan.of(Maintain.table("db.events").then(auto)), Mode.COMMIT);
    }
    OperationResult step = run.tables().get(0).operations().stream()
        .filter(o -> o.operation().equals("compact"))
        .findFirst()
        .orElseThrow();
    assertThat(step.message()).startsWith("layout auto: applying").contains("user_id");
    assertThat(step.metrics())
        .containsKeys("layout_gain_pct", "layout_files_per_query_expected_x100");
    Table after = writer.loadTable(TableIdentifier.of("db", "events"));
    assertThat(Content.of(after)).containsExactlyInAnyOrderElementsOf(content);
    assertThat(after.properties().get(AutoLayout.APPLIED)).startsWith(rec.strategy() + "|");

    replay(engine, queries);
    awaitLines(reports, 900);
    Advice later =
        IcebergLayouts.advise("db.events", after, ScanReports.read(reports, "db.events"), 0.2);
    List<Advice.Era> eras = later.eras();
    assertThat(eras).hasSize(3);
    Advice.Era binpacked = eras.get(1);
    Advice.Era laidOut = eras.get(2);
    assertThat(binpacked.queries()).isEqualTo(300);
    assertThat(laidOut.queries()).isEqualTo(300);
    // measured by Iceberg's own planning of the same scans: several times fewer files than the
    // bin-pack read
    assertThat(laidOut.filesPerQuery() * 2.5).isLessThan(binpacked.filesPerQuery());
    assertThat(later.recommendation()).isNull();
    assertThat(later.reason()).startsWith("nothing worth doing");

    // the next run keeps the layout for new files instead of bin-packing them away
    try (var r = IcebergResurfacer.connect(SqliteCatalogs.create("lake", dir.resolve("lake")))) {
      run = r.run(MaintenancePlan.of(Maintain.table("db.events").then(auto)), Mode.PREVIEW);
    }
    assertThat(run.tables().get(0).operations().get(0).message())
        .startsWith("layout auto: keeping " + rec.strategy());
    engine.close();
    writer.close();
  }

  /** An engine's own catalog over the lake, its collector configured by catalog properties only (with filter values). */
  static JdbcCatalog engineCatalog(Path lake, Map<String, String> collector) {
    Map<String, String> props = new java.util.HashMap<>(collector);
    props.put(CatalogProperties.URI, SqliteCatalogs.uri(lake));
    props.put(CatalogProperties.WAREHOUSE_LOCATION, SqliteCatalogs.warehouse(lake));
    props.put(CatalogProperties.METRICS_REPORTER_IMPL, ScanReportCollector.class.getName());
    props.put(ScanReportCollector.FILTER_VALUES, "true");
    JdbcCatalog engine = new JdbcCatalog();
    engine.setConf(dev.resurfacer.iceberg.catalog.Catalogs.localHadoopConf());
    engine.initialize("lake", props);
    return engine;
  }

  /** db.events: 40 files of 1,000 rows over two days (user_id, event, ts random), in 4 commits, 24 KB target files. */
  static Table eventsTable(JdbcCatalog writer) {
    writer.createNamespace(Namespace.of("db"));
    Table table = writer.createTable(
        TableIdentifier.of("db", "events"),
        SCHEMA,
        PartitionSpec.builderFor(SCHEMA).day("ts").build(),
        Map.of(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, Long.toString(24L << 10)));
    SplittableRandom rnd = new SplittableRandom(7);
    // 40 files in 4 commits: few manifests, so 900 planned scans stay cheap
    var append = table.newAppend();
    for (int f = 0; f < 40; f++) {
      List<Record> rows = new ArrayList<>();
      int day = f % 2;
      for (int i = 0; i < 1_000; i++) {
        GenericRecord r = GenericRecord.create(SCHEMA);
        r.set(0, f * 1_000L + i);
        r.set(1, (long) rnd.nextInt(100_000));
        r.set(2, EVENTS[rnd.nextInt(EVENTS.length)]);
        r.set(3, START.plusDays(day).plusNanos(rnd.nextLong(DAY_MICROS) * 1000));
        r.set(4, "p" + rnd.nextInt(1 << 20));
        rows.add(r);
      }
      TableWrites.writeData(table, rows).forEach(append::appendFile);
      if (f % 10 == 9) {
        append.commit();
        append = table.newAppend();
      }
    }
    return table;
  }

  /** 70% filter user_id (equality), 50% a one-hour ts range, 10% an event; every scan at least one of the first two. */
  static List<Expression> queries(int n) {
    SplittableRandom rnd = new SplittableRandom(11);
    List<Expression> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      double u = rnd.nextDouble();
      boolean user = u < 0.7;
      boolean ts = u >= 0.5;
      Expression e = Expressions.alwaysTrue();
      if (user) {
        e = Expressions.and(e, Expressions.equal("user_id", (long) rnd.nextInt(100_000)));
      }
      if (ts) {
        long from = START.toEpochSecond(ZoneOffset.UTC) * 1_000_000L
            + rnd.nextLong(2 * DAY_MICROS - 3_600_000_000L);
        e = Expressions.and(
            e,
            Expressions.and(
                Expressions.greaterThanOrEqual("ts", from),
                Expressions.lessThan("ts", from + 3_600_000_000L)));
      }
      if (rnd.nextDouble() < 0.1) {
        e = Expressions.and(e, Expressions.equal("event", EVENTS[rnd.nextInt(EVENTS.length)]));
      }
      out.add(e);
    }
    return out;
  }

  static void replay(JdbcCatalog engine, List<Expression> queries) throws IOException {
    Table t = engine.loadTable(TableIdentifier.of("db", "events"));
    for (Expression q : queries) {
      try (CloseableIterable<FileScanTask> tasks =
          t.newScan().filter(q).select("id", "payload").planFiles()) {
        tasks.forEach(task -> {});
      }
    }
  }

  static void awaitLines(Path reports, int scans) throws Exception {
    for (int i = 0; i < 1_000; i++) {
      long n = 0;
      try (Stream<Path> files = Files.list(reports)) {
        for (Path f : files.toList()) {
          n += Files.readAllLines(f).stream()
              .filter(l -> l.contains("\"kind\":\"scan\""))
              .count();
        }
      }
      if (n >= scans) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the collector wrote fewer than " + scans + " scans");
  }
}
