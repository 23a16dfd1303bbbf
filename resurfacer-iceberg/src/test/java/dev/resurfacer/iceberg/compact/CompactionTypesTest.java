package dev.resurfacer.iceberg.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.compact.CompactionResult.Status;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every primitive and nested type, through both runners, with identical rows required. */
class CompactionTypesTest {
  static final Types.StructType POINT = Types.StructType.of(
      Types.NestedField.optional(20, "x", Types.DoubleType.get()),
      Types.NestedField.optional(21, "label", Types.StringType.get()));
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "flag", Types.BooleanType.get()),
      Types.NestedField.optional(3, "i", Types.IntegerType.get()),
      Types.NestedField.optional(4, "f", Types.FloatType.get()),
      Types.NestedField.optional(5, "d", Types.DoubleType.get()),
      Types.NestedField.optional(6, "small_dec", Types.DecimalType.of(9, 2)),
      Types.NestedField.optional(7, "big_dec", Types.DecimalType.of(38, 10)),
      Types.NestedField.optional(8, "day", Types.DateType.get()),
      Types.NestedField.optional(9, "t", Types.TimeType.get()),
      Types.NestedField.optional(10, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(11, "tstz", Types.TimestampType.withZone()),
      Types.NestedField.optional(12, "s", Types.StringType.get()),
      Types.NestedField.optional(13, "u", Types.UUIDType.get()),
      Types.NestedField.optional(14, "b", Types.BinaryType.get()),
      Types.NestedField.optional(15, "point", POINT),
      Types.NestedField.optional(16, "tags", Types.ListType.ofOptional(22, Types.StringType.get())),
      Types.NestedField.optional(
          17,
          "attrs",
          Types.MapType.ofOptional(23, 24, Types.StringType.get(), Types.LongType.get())));

  @TempDir
  Path dir;

  JdbcCatalog catalog;

  @BeforeEach
  void setUp() {
    catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
  }

  @Test
  void bothRunnersRewriteEveryTypeToTheSameRows() {
    Table duck = create(
        "duck",
        SCHEMA,
        PartitionSpec.builderFor(SCHEMA).bucket("id", 2).truncate("s", 2).build());
    Table generic = create(
        "generic",
        SCHEMA,
        PartitionSpec.builderFor(SCHEMA).bucket("id", 2).truncate("s", 2).build());
    for (int f = 0; f < 4; f++) {
      List<Record> rows = rows(SCHEMA, f, 50);
      TableWrites.writeData(duck, rows)
          .forEach(file -> duck.newAppend().appendFile(file).commit());
      TableWrites.writeData(generic, rows)
          .forEach(file -> generic.newAppend().appendFile(file).commit());
    }
    List<String> before = Rows.sortedStrings(duck);
    assertThat(Rows.sortedStrings(generic)).isEqualTo(before);

    CompactionOptions options = CompactionOptions.defaults().withOption("min-input-files", "2");
    CompactionResult d = Compaction.execute(
        Compaction.plan(duck, options.withRunner(CompactionOptions.Runner.DUCKDB)));
    CompactionResult g = Compaction.execute(
        Compaction.plan(generic, options.withRunner(CompactionOptions.Runner.GENERIC)));

    assertThat(d.groups()).isNotEmpty().allSatisfy(r -> {
      assertThat(r.status()).as(r.message()).isEqualTo(Status.COMMITTED);
      assertThat(r.runner()).isEqualTo("duckdb");
    });
    assertThat(g.groups())
        .isNotEmpty()
        .allSatisfy(r -> assertThat(r.status()).as(r.message()).isEqualTo(Status.COMMITTED));
    duck.refresh();
    generic.refresh();
    assertThat(Rows.sortedStrings(duck)).isEqualTo(before);
    assertThat(Rows.sortedStrings(generic)).isEqualTo(before);
    // bucket x truncate partitions: every output file stays in its own partition
    assertThat(d.addedFiles()).isEqualTo(d.groups().size());
  }

  @Test
  void fixedColumnsGoToTheGenericRunnerAutomatically() {
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "hash", Types.FixedType.ofLength(4)));
    Table table = create("fixed", schema, PartitionSpec.unpartitioned());
    for (int f = 0; f < 3; f++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        Record r = GenericRecord.create(schema);
        r.setField("id", (long) f * 10 + i);
        r.setField("hash", new byte[] {(byte) f, (byte) i, 0, 1});
        rows.add(r);
      }
      TableWrites.writeData(table, rows)
          .forEach(file -> table.newAppend().appendFile(file).commit());
    }
    List<String> before = Rows.sortedStrings(table);
    CompactionPlan plan = Compaction.plan(
            table, CompactionOptions.defaults().withOption("min-input-files", "2"))
        .readout();
    assertThat(plan.groups()).singleElement().satisfies(g -> {
      assertThat(g.runner()).isEqualTo("generic");
      assertThat(g.runnerReason()).contains("fixed[4]");
    });
    CompactionResult r = Compaction.execute(
        Compaction.plan(table, CompactionOptions.defaults().withOption("min-input-files", "2")));
    assertThat(r.allCommitted()).isTrue();
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
  }

  @Test
  void avroAndOrcDataFilesAreRewrittenToParquetByTheGenericRunner() throws Exception {
    Schema schema = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "s", Types.StringType.get()));
    Table table = create("formats", schema, PartitionSpec.unpartitioned());
    for (String format : List.of("avro", "orc", "parquet")) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        Record r = GenericRecord.create(schema);
        r.setField("id", (long) i + format.length() * 100);
        r.setField("s", format + i);
        rows.add(r);
      }
      org.apache.iceberg.io.OutputFile out = table
          .io()
          .newOutputFile(table.locationProvider().newDataLocation("f-" + format + "." + format));
      org.apache.iceberg.io.DataWriter<Record> writer = switch (format) {
        case "avro" ->
          org.apache.iceberg.avro.Avro.writeData(out)
              .schema(schema)
              .withSpec(table.spec())
              .createWriterFunc(org.apache.iceberg.data.avro.DataWriter::create)
              .overwrite()
              .build();
        case "orc" ->
          org.apache
              .iceberg
              .orc
              .ORC
              .writeData(out)
              .schema(schema)
              .withSpec(table.spec())
              .createWriterFunc(org.apache.iceberg.data.orc.GenericOrcWriter::buildWriter)
              .overwrite()
              .build();
        default ->
          org.apache.iceberg.parquet.Parquet.writeData(out)
              .schema(schema)
              .withSpec(table.spec())
              .createWriterFunc(org.apache.iceberg.data.parquet.GenericParquetWriter::create)
              .overwrite()
              .build();
      };
      try (writer) {
        rows.forEach(writer::write);
      }
      table.newAppend().appendFile(writer.toDataFile()).commit();
    }
    table.refresh();
    List<String> before = Rows.sortedStrings(table);
    CompactionPlan plan = Compaction.plan(
            table, CompactionOptions.defaults().withOption("min-input-files", "2"))
        .readout();
    assertThat(plan.groups()).singleElement().satisfies(g -> {
      assertThat(g.runner()).isEqualTo("generic");
      assertThat(g.runnerReason()).contains("data file format");
    });
    CompactionResult r = Compaction.execute(
        Compaction.plan(table, CompactionOptions.defaults().withOption("min-input-files", "2")));
    assertThat(r.groups())
        .singleElement()
        .satisfies(g -> assertThat(g.status()).as(g.message()).isEqualTo(Status.COMMITTED));
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    table
        .newScan()
        .planFiles()
        .forEach(
            t -> assertThat(t.file().format()).isEqualTo(org.apache.iceberg.FileFormat.PARQUET));
  }

  @Test
  void schemaEvolutionRenamedAddedWithDefaultAndPromotedColumnsComeOutRight() {
    Schema v1 = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "qty", Types.IntegerType.get()),
        Types.NestedField.optional(3, "price", Types.FloatType.get()),
        Types.NestedField.optional(4, "amount", Types.DecimalType.of(9, 2)),
        Types.NestedField.optional(5, "name", Types.StringType.get()));
    for (CompactionOptions.Runner runner :
        List.of(CompactionOptions.Runner.DUCKDB, CompactionOptions.Runner.GENERIC)) {
      Table table = catalog
          .buildTable(
              TableIdentifier.of("db", "evo_" + runner.name().toLowerCase(java.util.Locale.ROOT)),
              v1)
          .withProperty(TableProperties.FORMAT_VERSION, "3")
          .create();
      for (int f = 0; f < 2; f++) {
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          Record r = GenericRecord.create(v1);
          r.setField("id", (long) f * 100 + i);
          r.setField("qty", i);
          r.setField("price", i + 0.5f);
          r.setField("amount", BigDecimal.valueOf(i * 100 + 7, 2));
          r.setField("name", "n" + i);
          rows.add(r);
        }
        TableWrites.writeData(table, rows)
            .forEach(file -> table.newAppend().appendFile(file).commit());
      }
      table
          .updateSchema()
          .renameColumn("name", "label")
          .updateColumn("qty", Types.LongType.get())
          .updateColumn("price", Types.DoubleType.get())
          .updateColumn("amount", Types.DecimalType.of(18, 2))
          .addColumn(
              "region", Types.StringType.get(), org.apache.iceberg.expressions.Literal.of("eu"))
          .commit();
      table.refresh();
      List<String> before = Rows.sortedStrings(table);
      assertThat(before.get(0)).contains("|eu|");
      CompactionResult r = Compaction.execute(Compaction.plan(
          table,
          CompactionOptions.defaults().withRunner(runner).withOption("min-input-files", "2")));
      assertThat(r.groups())
          .singleElement()
          .satisfies(g -> assertThat(g.status()).as(g.message()).isEqualTo(Status.COMMITTED));
      table.refresh();
      assertThat(Rows.sortedStrings(table)).as(runner.name()).isEqualTo(before);
    }
  }

  private Table create(String name, Schema schema, PartitionSpec spec) {
    return catalog
        .buildTable(TableIdentifier.of("db", name), schema)
        .withPartitionSpec(spec)
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();
  }

  static List<Record> rows(Schema schema, int seed, int n) {
    Random rng = new Random(seed);
    List<Record> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Record r = GenericRecord.create(schema);
      boolean nulls = i % 7 == 3;
      r.setField("id", (long) seed * 1000 + i);
      r.setField("flag", nulls ? null : rng.nextBoolean());
      r.setField("i", nulls ? null : rng.nextInt());
      r.setField("f", nulls ? null : rng.nextFloat() * 1000 - 500);
      r.setField("d", nulls ? null : rng.nextGaussian() * 1e6);
      r.setField(
          "small_dec", nulls ? null : BigDecimal.valueOf(rng.nextInt(1_000_000) - 500_000, 2));
      r.setField(
          "big_dec",
          nulls
              ? null
              : new BigDecimal("1234567890123456789012345678.0123456789")
                  .add(BigDecimal.valueOf(i)));
      r.setField("day", nulls ? null : LocalDate.of(2026, 1, 1).plusDays(rng.nextInt(400) - 200));
      r.setField(
          "t",
          nulls
              ? null
              : LocalTime.ofNanoOfDay((long) rng.nextInt(86_400_000) * 1_000_000L + 123_000));
      r.setField(
          "ts",
          nulls
              ? null
              : LocalDateTime.of(2026, 3, 1, 12, 0)
                  .plusSeconds(rng.nextInt(1_000_000))
                  .plusNanos(456_000));
      r.setField(
          "tstz",
          nulls
              ? null
              : OffsetDateTime.of(2026, 3, 1, 12, 0, 0, 789_000, ZoneOffset.UTC)
                  .plusSeconds(rng.nextInt(1_000_000)));
      r.setField("s", nulls ? null : "str-" + (char) ('a' + rng.nextInt(5)) + "-é✓-" + i);
      r.setField("u", nulls ? null : new UUID(rng.nextLong(), rng.nextLong()));
      r.setField(
          "b", nulls ? null : ByteBuffer.wrap(new byte[] {(byte) i, 0, (byte) 255, (byte) seed}));
      if (!nulls) {
        Record p = GenericRecord.create(POINT);
        p.setField("x", rng.nextDouble());
        p.setField("label", i % 3 == 0 ? null : "p" + i);
        r.setField("point", p);
        r.setField("tags", i % 4 == 0 ? List.of() : java.util.Arrays.asList("t" + i, null, "z"));
        r.setField("attrs", Map.of("k" + i, (long) i, "x", -1L));
      }
      out.add(r);
    }
    return out;
  }
}
