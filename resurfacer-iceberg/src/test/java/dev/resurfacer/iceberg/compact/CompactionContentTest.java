package dev.resurfacer.iceberg.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.compact.CompactionResult.Status;
import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.types.Types;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12: tables written by Iceberg Java (and by other Parquet writers, added through Iceberg's
 * API) whose content a rewrite once changed or could not rewrite. Each test compares the table's
 * type-tagged content, read by Iceberg's own reader, before and after; where DuckDB cannot read a
 * file exactly, forcing it proves the default verification refuses its output.
 */
class CompactionContentTest {
  @TempDir
  Path dir;

  JdbcCatalog catalog;

  @BeforeEach
  void setUp() {
    catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
  }

  private Table create(String name, Schema schema, PartitionSpec spec, int formatVersion) {
    return catalog
        .buildTable(TableIdentifier.of("db", name), schema)
        .withPartitionSpec(spec)
        .withProperty(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion))
        .create();
  }

  private static CompactionOptions opts() {
    return CompactionOptions.defaults().withOption("min-input-files", "2");
  }

  /** Compacts with {@code options} and requires every group committed with the content unchanged. */
  private static CompactionResult compactKeepingContent(Table table, CompactionOptions options) {
    List<String> before = Content.of(table);
    assertThat(before).isNotEmpty();
    CompactionResult result = Compaction.execute(Compaction.plan(table, options));
    assertThat(result.groups())
        .isNotEmpty()
        .allSatisfy(g -> assertThat(g.status()).as(g.message()).isEqualTo(Status.COMMITTED));
    assertThat(result.verification()).isEqualTo("content");
    assertThat(Content.of(table)).isEqualTo(before);
    return result;
  }

  /**
   * Forces the DuckDB runner past its routing: the default verification must refuse what it wrote,
   * and auto then rewrites the group with the generic runner, content intact.
   */
  private static void forcedDuckDbIsCaughtByVerification(Table table) {
    List<String> before = Content.of(table);
    CompactionResult result = Compaction.execute(
        Compaction.plan(table, opts()), (t, g, o, ordering) -> new DuckDbRewriter());
    assertThat(result.groups()).isNotEmpty().allSatisfy(g -> {
      assertThat(g.status()).as(g.message()).isEqualTo(Status.COMMITTED);
      assertThat(g.runner()).isEqualTo("generic");
      assertThat(g.message()).startsWith("duckdb failed");
    });
    assertThat(Content.of(table)).isEqualTo(before);
  }

  private static void append(Table table, List<Record> rows) {
    TableWrites.writeData(table, rows)
        .forEach(f -> table.newAppend().appendFile(f).commit());
  }

  private static Record record(Schema schema, Object... values) {
    Record r = GenericRecord.create(schema);
    for (int i = 0; i < values.length; i++) {
      r.set(i, values[i]);
    }
    return r;
  }

  /** A Parquet file written by parquet-mr itself (no Iceberg writer), added to the table as it is. */
  private void appendForeignFile(
      Table table, String name, MessageType type, Consumer<List<Group>> rows) throws IOException {
    Path file =
        Path.of(table.location().replaceFirst("^file:", "")).resolve("data").resolve(name);
    Files.createDirectories(file.getParent());
    List<Group> groups = new ArrayList<>();
    rows.accept(groups);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(
            new org.apache.hadoop.fs.Path(file.toString()))
        .withType(type)
        .withConf(new Configuration())
        .build()) {
      for (Group g : groups) {
        w.write(g);
      }
    }
    DataFile data = DataFiles.builder(table.spec())
        .withPath(file.toString())
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(Files.size(file))
        .withRecordCount(groups.size())
        .build();
    table.newAppend().appendFile(data).commit();
  }

  // ---- the six content bugs ----

  @Test
  void filesWithoutFieldIdsAreReadThroughTheNameMapping() throws IOException {
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "s", Types.StringType.get()),
        Types.NestedField.optional(
            3,
            "point",
            Types.StructType.of(
                Types.NestedField.optional(4, "x", Types.DoubleType.get()),
                Types.NestedField.optional(5, "label", Types.StringType.get()))));
    Table table = create("unmapped", schema, PartitionSpec.unpartitioned(), 2);
    table
        .updateProperties()
        .set(
            TableProperties.DEFAULT_NAME_MAPPING,
            NameMappingParser.toJson(MappingUtil.create(schema)))
        .commit();
    // columns in another order than the table's: matching by position would be visibly wrong
    MessageType noIds = MessageTypeParser.parseMessageType(
        "message m { optional group point { optional binary label (UTF8); optional double x; } optional binary s (UTF8); required int64 id; }");
    List<Record> written = new ArrayList<>();
    Schema point = schema.findType("point").asStructType().asSchema();
    for (int f = 0; f < 3; f++) {
      final int file = f;
      appendForeignFile(table, "migrated-" + f + ".parquet", noIds, rows -> {
        SimpleGroupFactory groups = new SimpleGroupFactory(noIds);
        for (int i = 0; i < 20; i++) {
          Group g = groups.newGroup();
          g.addGroup("point").append("label", "p" + i).append("x", i * 0.5);
          rows.add(g.append("s", "row " + i).append("id", (long) file * 100 + i));
          written.add(
              record(schema, (long) file * 100 + i, "row " + i, record(point, i * 0.5, "p" + i)));
        }
      });
    }
    assertThat(Compaction.plan(table, opts()).readout().groups())
        .singleElement()
        .satisfies(g -> assertThat(g.runnerReason()).contains("no Parquet field ids"));
    // Iceberg 1.12's IcebergGenerics ignores the name mapping, so the oracle here is what was
    // written
    CompactionResult result = Compaction.execute(
        Compaction.plan(table, opts()), (t, g, o, ordering) -> new DuckDbRewriter());
    assertThat(result.groups()).singleElement().satisfies(g -> {
      assertThat(g.status()).as(g.message()).isEqualTo(Status.COMMITTED);
      assertThat(g.runner()).isEqualTo("generic");
      assertThat(g.message()).startsWith("duckdb failed");
    });
    assertThat(Content.of(table)).isEqualTo(Content.of(schema, written));
  }

  @Test
  void unannotatedByteArrayStringsKeepTheirCharacters() throws IOException {
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "s", Types.StringType.get()));
    Table table = create("unannotated", schema, PartitionSpec.unpartitioned(), 2);
    MessageType plainBinary = MessageTypeParser.parseMessageType(
        "message m { required int64 id = 1; optional binary s = 2; }");
    String[] words = {"café", "naïve", "日本語", "plain", "emoji \uD83D\uDE00"};
    for (int f = 0; f < 3; f++) {
      final int file = f;
      appendForeignFile(table, "old-writer-" + f + ".parquet", plainBinary, rows -> {
        SimpleGroupFactory groups = new SimpleGroupFactory(plainBinary);
        for (int i = 0; i < words.length; i++) {
          rows.add(groups
              .newGroup()
              .append("id", (long) file * 100 + i)
              .append("s", Binary.fromString(words[i])));
        }
      });
    }
    assertThat(Content.of(table)).anySatisfy(row -> assertThat(row).contains("string:café"));
    assertThat(Compaction.plan(table, opts()).readout().groups())
        .singleElement()
        .satisfies(g -> assertThat(g.runnerReason()).contains("without the UTF8 annotation"));
    forcedDuckDbIsCaughtByVerification(table);
  }

  @Test
  void sanitisedNestedNamesAreMatchedById() {
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(
            2,
            "info",
            Types.StructType.of(
                Types.NestedField.optional(3, "user-id", Types.LongType.get()),
                Types.NestedField.optional(4, "1st", Types.StringType.get()),
                Types.NestedField.optional(5, "a.b", Types.IntegerType.get()),
                Types.NestedField.optional(6, "plain", Types.StringType.get()))),
        Types.NestedField.optional(
            7,
            "odd",
            Types.StructType.of(
                Types.NestedField.optional(8, "x-1", Types.IntegerType.get()),
                Types.NestedField.optional(9, "2y", Types.StringType.get()))));
    Table table = create("sanitised", schema, PartitionSpec.unpartitioned(), 2);
    for (int f = 0; f < 3; f++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        Record info = record(
            schema.findType("info").asStructType().asSchema(),
            (long) i,
            "first " + i,
            i * 7,
            "p" + i);
        Record odd = record(schema.findType("odd").asStructType().asSchema(), i, "y" + i);
        rows.add(record(schema, (long) f * 100 + i, info, odd));
      }
      append(table, rows);
    }
    assertThat(Compaction.plan(table, opts()).readout().groups())
        .singleElement()
        .satisfies(g -> assertThat(g.runnerReason()).contains("is stored as"));
    forcedDuckDbIsCaughtByVerification(table);
  }

  @Test
  void aNestedFieldDroppedAndReAddedUnderItsNameStaysEmptyForOldRows() {
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(
            2,
            "point",
            Types.StructType.of(
                Types.NestedField.optional(3, "x", Types.DoubleType.get()),
                Types.NestedField.optional(4, "label", Types.StringType.get()))));
    Table table = create("readded", schema, PartitionSpec.unpartitioned(), 2);
    for (int f = 0; f < 2; f++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        rows.add(record(
            schema,
            (long) f * 100 + i,
            record(schema.findType("point").asStructType().asSchema(), i * 1.5, "old " + i)));
      }
      append(table, rows);
    }
    table.updateSchema().deleteColumn("point.label").commit();
    table.updateSchema().addColumn("point", "label", Types.StringType.get()).commit();
    Schema now = table.schema();
    List<Record> rows = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      rows.add(record(
          now,
          900L + i,
          record(now.findType("point").asStructType().asSchema(), -1.0 * i, "new " + i)));
    }
    append(table, rows);
    assertThat(Content.of(table)).noneMatch(row -> row.contains("old "));

    assertThat(Compaction.plan(table, opts()).readout().groups())
        .singleElement()
        .satisfies(g -> assertThat(g.runnerReason()).contains("field id"));
    forcedDuckDbIsCaughtByVerification(table);
  }

  private static final float NAN_F = Float.intBitsToFloat(0x7fc00001);
  private static final double NAN_D = Double.longBitsToDouble(0x7ff8000000000001L);

  private static Table signedZeros(Table table) {
    return signedZeros(table, true);
  }

  private static Table signedZeros(Table table, boolean withNaN) {
    Schema schema = table.schema();
    for (int f = 0; f < 3; f++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        boolean negative = i % 2 == 0;
        float fv = withNaN && i % 10 == 9 ? NAN_F : negative ? -0.0f : 0.0f;
        double dv =
            withNaN && i % 10 == 9 ? NAN_D : i % 10 == 7 ? Double.MIN_VALUE : negative ? -0.0 : 0.0;
        rows.add(record(schema, (long) f * 100 + i, fv, dv));
      }
      append(table, rows);
    }
    return table;
  }

  private static final Schema ZEROS = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "f", Types.FloatType.get()),
      Types.NestedField.optional(3, "d", Types.DoubleType.get()));

  @Test
  void signedZerosAndNaNsSurviveBitForBit() {
    for (boolean withNaN : new boolean[] {false, true}) {
      String what = withNaN ? "NaN" : "both -0.0 and +0.0";
      Table generic = signedZeros(
          create("zeros_generic_" + withNaN, ZEROS, PartitionSpec.unpartitioned(), 2), withNaN);
      List<String> before = Content.of(generic);
      assertThat(before)
          .anySatisfy(r -> assertThat(r).contains("double:-0.0#8000000000000000"))
          .anySatisfy(r -> assertThat(r).contains("double:0.0#0}"));
      compactKeepingContent(generic, opts().withRunner(CompactionOptions.Runner.GENERIC));

      Table auto = signedZeros(
          create("zeros_auto_" + withNaN, ZEROS, PartitionSpec.unpartitioned(), 2), withNaN);
      CompactionResult viaAuto = compactKeepingContent(auto, opts());
      assertThat(viaAuto.groups()).singleElement().satisfies(g -> {
        assertThat(g.runner()).isEqualTo("generic");
        assertThat(g.message())
            .contains("DuckDB cannot write this group exactly")
            .contains(what);
      });

      Table duck = signedZeros(
          create("zeros_duck_" + withNaN, ZEROS, PartitionSpec.unpartitioned(), 2), withNaN);
      List<String> duckBefore = Content.of(duck);
      CompactionResult refused = Compaction.execute(
          Compaction.plan(duck, opts().withRunner(CompactionOptions.Runner.DUCKDB)));
      assertThat(refused.groups()).singleElement().satisfies(g -> {
        assertThat(g.status()).isEqualTo(Status.FAILED);
        assertThat(g.message()).contains(what);
      });
      assertThat(Content.of(duck)).isEqualTo(duckBefore);
    }
  }

  @Test
  void duckDbStillRewritesFloatsWithOneKindOfZero() {
    Table table = create("one_zero", ZEROS, PartitionSpec.unpartitioned(), 2);
    for (int f = 0; f < 2; f++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        rows.add(record(
            ZEROS,
            (long) f * 100 + i,
            i % 2 == 0 ? 0.0f : -1.5f * i,
            i % 2 == 0 ? 0.0 : Double.MIN_VALUE * i));
      }
      append(table, rows);
    }
    CompactionResult result = compactKeepingContent(table, opts());
    assertThat(result.groups()).singleElement().satisfies(g -> {
      assertThat(g.runner()).isEqualTo("duckdb");
      assertThat(g.message()).isNull();
    });
  }

  @Test
  void anEqualityDeleteOnMinusZeroKeepsThePlusZeroRows() {
    Table table = signedZeros(create("eqzero", ZEROS, PartitionSpec.unpartitioned(), 2));
    long plusZeros =
        Content.of(table).stream().filter(r -> r.contains("double:0.0#0}")).count();
    assertThat(plusZeros).isPositive();
    Schema dOnly = ZEROS.select("d");
    DeleteFile eq = TableWrites.writeEqualityDeletes(
        table, table.spec(), null, dOnly, List.of(record(dOnly, -0.0)));
    table.newRowDelta().addDeletes(eq).commit();
    assertThat(
            Content.of(table).stream().filter(r -> r.contains("double:0.0#0}")).count())
        .as("Iceberg's equality on floats compares bits: +0.0 rows stay")
        .isEqualTo(plusZeros);
    assertThat(Content.of(table)).noneMatch(r -> r.contains("double:-0.0#"));

    assertThat(Compaction.plan(table, opts()).readout().groups())
        .singleElement()
        .satisfies(g -> assertThat(g.runnerReason()).contains("floating-point"));
    compactKeepingContent(table, opts());
    assertThat(
            Content.of(table).stream().filter(r -> r.contains("double:0.0#0}")).count())
        .isEqualTo(plusZeros);
  }

  @Test
  void rowLineageSurvivesASpilledGenericSort() throws IOException {
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "s", Types.StringType.get()));
    Table table = create("lineage", schema, PartitionSpec.unpartitioned(), 3);
    for (int f = 0; f < 3; f++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 100_000; i++) {
        rows.add(record(schema, (long) f * 1_000_000 + i, "s" + (i * 7919 % 100_000)));
      }
      append(table, rows);
    }
    List<String> before = lineageContent(table);
    CompactionOptions options = opts()
        .withRunner(CompactionOptions.Runner.GENERIC)
        .withMemory(64L << 20)
        .withOrdering(new Ordering.Sort("s"));
    CompactionResult result = Compaction.execute(Compaction.plan(table, options));
    assertThat(result.groups())
        .singleElement()
        .satisfies(g -> assertThat(g.status()).as(g.message()).isEqualTo(Status.COMMITTED));
    assertThat(lineageContent(table)).isEqualTo(before);
  }

  private static List<String> lineageContent(Table table) throws IOException {
    table.refresh();
    Schema schema = LiveRows.rewriteSchema(table);
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> all = table.newScan().planFiles()) {
      all.forEach(tasks::add);
    }
    List<Record> rows = LiveRows.readAll(table, tasks, schema);
    assertThat(rows).allSatisfy(r -> assertThat(r.getField("_row_id")).isNotNull());
    return Content.of(schema, rows);
  }

  // ---- the crashes ----

  private static final Schema CATEGORIZED = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "cat", Types.StringType.get()),
      Types.NestedField.optional(3, "v", Types.DoubleType.get()));

  private static void appendCategories(Table table, String... categories) {
    for (int f = 0; f < 2; f++) {
      for (String cat : categories) {
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          rows.add(record(table.schema(), (long) f * 1000 + i, cat, i * 1.25));
        }
        append(table, rows);
      }
    }
  }

  @Test
  void percentEscapedIdentityPartitionValuesAreRewrittenByDuckDb() {
    Table table = create(
        "escaped",
        CATEGORIZED,
        PartitionSpec.builderFor(CATEGORIZED).identity("cat").build(),
        2);
    appendCategories(table, "a:b", "é", "x y", "50%", "a/b");
    CompactionResult result = compactKeepingContent(table, opts());
    assertThat(result.groups()).hasSize(5).allSatisfy(g -> {
      assertThat(g.runner()).isEqualTo("duckdb");
      assertThat(g.message()).isNull();
    });
  }

  @Test
  void aWarehousePathWithASpaceIsRewrittenByDuckDb() {
    catalog = SqliteCatalogs.create("spaced", dir.resolve("my warehouse"));
    catalog.createNamespace(Namespace.of("db"));
    Table table = create("t", CATEGORIZED, PartitionSpec.unpartitioned(), 2);
    appendCategories(table, "a");
    assertThat(table.location()).contains("my warehouse");
    CompactionResult result =
        compactKeepingContent(table, opts().withRunner(CompactionOptions.Runner.DUCKDB));
    assertThat(result.groups())
        .singleElement()
        .satisfies(g -> assertThat(g.runner()).isEqualTo("duckdb"));
  }

  @Test
  void columnsNamedLikeDuckDbVirtualColumnsOrCaseTwinsGoToTheGenericRunner() {
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "file_row_number", Types.LongType.get()),
        Types.NestedField.optional(3, "filename", Types.StringType.get()));
    Schema twins = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "v", Types.StringType.get()),
        Types.NestedField.optional(3, "V", Types.StringType.get()));
    for (Schema s : List.of(schema, twins)) {
      Table table = create(
          "names_" + s.columns().get(1).name().length() + s.columns().get(2).name(),
          s,
          PartitionSpec.unpartitioned(),
          2);
      for (int f = 0; f < 2; f++) {
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          rows.add(record(
              s, (long) f * 100 + i, s == schema ? (Object) (long) i : "lower " + i, "other " + i));
        }
        append(table, rows);
      }
      assertThat(Compaction.plan(table, opts()).readout().groups())
          .singleElement()
          .satisfies(g -> {
            assertThat(g.runner()).isEqualTo("generic");
            assertThat(g.runnerReason())
                .containsAnyOf("DuckDB virtual column", "differ only in case");
          });
      compactKeepingContent(table, opts());
    }
  }

  @Test
  void initialDefaultsDuckDbCannotExpressGoToTheGenericRunner() {
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    List<Consumer<Table>> evolutions = List.of(
        t -> t.updateSchema()
            .addColumn(
                "day",
                Types.DateType.get(),
                Literal.of(LocalDate.of(2026, 11, 30).toEpochDay()).to(Types.DateType.get()))
            .commit(),
        t -> t.updateSchema()
            .addColumn(
                "at",
                Types.TimeType.get(),
                Literal.of(LocalTime.of(6, 30).toNanoOfDay() / 1000).to(Types.TimeType.get()))
            .commit(),
        t -> t.updateSchema()
            .addColumn(
                "ts",
                Types.TimestampType.withoutZone(),
                Literal.of("2026-11-30T06:30:00").to(Types.TimestampType.withoutZone()))
            .commit(),
        t -> t.updateSchema()
            .addColumn("n", Types.IntegerType.get(), Literal.of(7))
            .addColumn("label", Types.StringType.get(), Literal.of("none"))
            .commit());
    for (int e = 0; e < evolutions.size(); e++) {
      Table table = create("defaults_" + e, schema, PartitionSpec.unpartitioned(), 3);
      for (int f = 0; f < 2; f++) {
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          rows.add(record(schema, (long) f * 100 + i));
        }
        append(table, rows);
      }
      evolutions.get(e).accept(table);
      table.refresh();
      assertThat(Content.of(table)).allSatisfy(r -> assertThat(r).doesNotContain("null:"));
      assertThat(Compaction.plan(table, opts()).readout().groups())
          .singleElement()
          .satisfies(g -> {
            assertThat(g.runner()).isEqualTo("generic");
            assertThat(g.runnerReason()).contains("default value");
          });
      compactKeepingContent(table, opts());
    }
  }

  @Test
  void aDuckDbFailureFallsBackToTheGenericRunnerAndReportsDuckDbsOwnMessage() {
    Table table = create("fallback", CATEGORIZED, PartitionSpec.unpartitioned(), 2);
    appendCategories(table, "a");
    GroupRewriter failing = new GroupRewriter() {
      @Override
      public String name() {
        return "duckdb";
      }

      @Override
      public List<DataFile> rewrite(
          Table t, org.apache.iceberg.actions.RewriteFileGroup group, Settings settings)
          throws Exception {
        throw new java.sql.SQLException(
            "Invalid Input Error: Attempting to execute an unsuccessful or closed pending query result\n"
                + "Error: Out of Memory Error: failed to allocate data of size 16.0 MiB (51.1 MiB/61.0 MiB used)");
      }
    };
    List<String> before = Content.of(table);
    CompactionResult result =
        Compaction.execute(Compaction.plan(table, opts()), (t, g, o, ordering) -> failing);
    assertThat(result.groups()).singleElement().satisfies(g -> {
      assertThat(g.status()).isEqualTo(Status.COMMITTED);
      assertThat(g.runner()).isEqualTo("generic");
      assertThat(g.message())
          .contains("Out of Memory Error")
          .doesNotContain("Attempting to execute");
    });
    assertThat(Content.of(table)).isEqualTo(before);

    CompactionResult explicit = Compaction.execute(
        Compaction.plan(
            table,
            opts().withRunner(CompactionOptions.Runner.DUCKDB).withOption("rewrite-all", "true")),
        (t, g, o, ordering) -> failing);
    assertThat(explicit.groups()).singleElement().satisfies(g -> {
      assertThat(g.status()).as("--runner duckdb never falls back").isEqualTo(Status.FAILED);
      assertThat(g.message()).startsWith("Error: Out of Memory Error");
    });
  }

  @Test
  void partitionSelectsExactlyThatPartition() {
    Table table = create(
        "parts",
        CATEGORIZED,
        PartitionSpec.builderFor(CATEGORIZED).identity("cat").build(),
        2);
    appendCategories(table, "a", "ab");
    assertThat(Compaction.plan(table, opts().withPartition("cat=a")).readout().groups())
        .singleElement()
        .satisfies(g -> assertThat(g.partition()).isEqualTo("cat=a"));
    assertThat(Compaction.plan(table, opts().withPartition("cat=ab")).readout().groups())
        .singleElement()
        .satisfies(g -> assertThat(g.partition()).isEqualTo("cat=ab"));
    assertThat(Compaction.plan(table, opts().withPartition("cat=")).readout().groups())
        .isEmpty();
  }

  @Test
  void bothRunnersSpellFileLocationsAsIcebergsWritersDo() throws IOException {
    JdbcCatalog uris = new JdbcCatalog();
    uris.setConf(dev.resurfacer.iceberg.catalog.Catalogs.localHadoopConf());
    Files.createDirectories(dir.resolve("uris"));
    uris.initialize(
        "uris",
        Map.of(
            org.apache.iceberg.CatalogProperties.URI,
            SqliteCatalogs.uri(dir.resolve("uris")),
            org.apache.iceberg.CatalogProperties.WAREHOUSE_LOCATION,
            "file://" + dir.resolve("uris").resolve("warehouse")));
    uris.createNamespace(Namespace.of("db"));
    Table table = uris.buildTable(TableIdentifier.of("db", "t"), CATEGORIZED)
        .withPartitionSpec(PartitionSpec.builderFor(CATEGORIZED).identity("cat").build())
        .create();
    appendCategories(table, "a", "b");
    String icebergSpelling = spelling(
        table.currentSnapshot().addedDataFiles(table.io()).iterator().next().location());
    compactKeepingContent(
        table, opts().withPartition("cat=a").withRunner(CompactionOptions.Runner.DUCKDB));
    compactKeepingContent(
        table, opts().withPartition("cat=b").withRunner(CompactionOptions.Runner.GENERIC));
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> assertThat(spelling(t.file().location()))
          .as(t.file().location())
          .isEqualTo(icebergSpelling));
    }
  }

  /** The location up to the warehouse directory: scheme and slashes as written. */
  private String spelling(String location) {
    return location.substring(0, location.indexOf(dir.getFileName().toString()));
  }
}
