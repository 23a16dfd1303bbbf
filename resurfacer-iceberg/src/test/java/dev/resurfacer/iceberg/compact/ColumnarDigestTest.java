package dev.resurfacer.iceberg.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.content.RowDigest;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
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
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The columnar digest is the generic reader's digest, value for value: every flat type, nulls,
 * signed zeros, NaN payloads and long decimals, with position deletes and deletion vectors applied
 * by position; files it cannot read exactly are refused, not guessed at.
 */
class ColumnarDigestTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "i", Types.IntegerType.get()),
      Types.NestedField.optional(3, "b", Types.BooleanType.get()),
      Types.NestedField.optional(4, "f", Types.FloatType.get()),
      Types.NestedField.optional(5, "d", Types.DoubleType.get()),
      Types.NestedField.optional(6, "day", Types.DateType.get()),
      Types.NestedField.optional(7, "t", Types.TimeType.get()),
      Types.NestedField.optional(8, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(9, "tz", Types.TimestampType.withZone()),
      Types.NestedField.optional(10, "s", Types.StringType.get()),
      Types.NestedField.optional(11, "u", Types.UUIDType.get()),
      Types.NestedField.optional(12, "fx", Types.FixedType.ofLength(3)),
      Types.NestedField.optional(13, "bin", Types.BinaryType.get()),
      Types.NestedField.optional(14, "small", Types.DecimalType.of(9, 2)),
      Types.NestedField.optional(15, "mid", Types.DecimalType.of(18, 3)),
      Types.NestedField.optional(16, "big", Types.DecimalType.of(30, 5)));

  @TempDir
  Path dir;

  JdbcCatalog catalog;

  @BeforeEach
  void setUp() {
    catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
  }

  @Test
  void theColumnarDigestIsTheGenericReadersWithDeletesApplied() throws Exception {
    for (int version : List.of(2, 3)) {
      Table table = catalog
          .buildTable(TableIdentifier.of("db", "v" + version), SCHEMA)
          .withPartitionSpec(PartitionSpec.unpartitioned())
          .withProperty(TableProperties.FORMAT_VERSION, Integer.toString(version))
          .create();
      List<DataFile> files = new ArrayList<>();
      for (int f = 0; f < 2; f++) {
        DataFile file = TableWrites.writeData(table, rows(f * 5000L, 5000)).get(0);
        table.newAppend().appendFile(file).commit();
        files.add(file);
      }
      if (version == 2) {
        table
            .newRowDelta()
            .addDeletes(TableWrites.writePositionDeletes(
                table,
                table.spec(),
                null,
                List.of(
                    new Position(files.get(0).location(), 3),
                    new Position(files.get(1).location(), 4097))))
            .commit();
      } else {
        TableWrites.writeDeletionVectors(table, Map.of(files.get(0), List.of(0L, 4096L, 4999L)))
            .forEach(dv -> table.newRowDelta().addDeletes(dv).commit());
      }
      table.refresh();
      List<FileScanTask> tasks = new ArrayList<>();
      try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
        planned.forEach(tasks::add);
      }
      // v3 adds the lineage columns, which the columnar reader leaves to the generic one; the
      // table's own columns it reads
      Schema schema = table.schema();
      RowDigest generic = Checksum.ofTasks(table, tasks, schema).digest();
      assertThat(generic.rows()).isEqualTo(version == 2 ? 9998 : 9997);
      assertThat(ColumnarDigest.ofTasks(table, tasks, schema)).as("v" + version).isEqualTo(generic);
      List<String> locations = files.stream().map(DataFile::location).toList();
      assertThat(ColumnarDigest.ofFiles(table, locations, schema))
          .isEqualTo(Checksum.ofFiles(table, locations, schema).digest());
      assertThat(ColumnarDigest.reads(table, LiveRows.rewriteSchema(table), tasks))
          .isEqualTo(version == 2);
    }
  }

  /**
   * Every page layout and encoding the page decoder meets: v1 and v2 pages, dictionary pages and the
   * plain (v1) or delta (v2) pages a writer falls back to when the dictionary fills, pages of many
   * sizes that do not line up with the digest's blocks, all compared with the generic reader. Files
   * of many row groups too: each row group's chunk buffers are handed back and lent again to the
   * next row group and file, so a buffer reused too early would show here as a different digest.
   */
  @Test
  void everyPageLayoutDigestsAsTheGenericReaderReadsIt() throws Exception {
    // one scratch across every layout and two widths, as a run's groups share theirs: arrays grown
    // for one table's pages or row groups, or left from a wider schema, must not change a digest
    try (dev.resurfacer.content.DigestScratch shared = ColumnarDigest.newScratch();
        dev.resurfacer.content.DigestScratch byRowGroup = rowGroupReads()) {
      everyPageLayout(shared, byRowGroup);
    }
  }

  /** A scratch that reads every file a row group at a time, as a rewrite's large outputs are read. */
  private static dev.resurfacer.content.DigestScratch rowGroupReads() {
    return new dev.resurfacer.content.DigestScratch(
        () -> org.apache.parquet.hadoop.util.HadoopCodecs.newFactory(0), 0);
  }

  /**
   * Every codec a writer may choose, in v1 and v2 pages: zstd and snappy pages are decompressed by
   * the digest's own decompressor, gzip by parquet-java's codecs, uncompressed pages read in place;
   * each file read whole and a row group at a time.
   */
  @Test
  void everyCodecDigestsAsTheGenericReaderReadsIt() throws Exception {
    try (dev.resurfacer.content.DigestScratch byRowGroup = rowGroupReads()) {
      for (String pageVersion : List.of("v1", "v2")) {
        for (String codec : List.of("zstd", "snappy", "gzip", "uncompressed")) {
          String name = "codec_" + codec + "_" + pageVersion;
          Table table = catalog
              .buildTable(TableIdentifier.of("db", name), SCHEMA)
              .withPartitionSpec(PartitionSpec.unpartitioned())
              .withProperty(TableProperties.PARQUET_PAGE_VERSION, pageVersion)
              .withProperty(TableProperties.PARQUET_COMPRESSION, codec)
              .withProperty(TableProperties.PARQUET_PAGE_ROW_LIMIT, "700")
              .withProperty(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "16384")
              .create();
          DataFile file = TableWrites.writeData(table, rows(0, 3000)).get(0);
          table.newAppend().appendFile(file).commit();
          List<String> locations = List.of(file.location());
          RowDigest generic = Checksum.ofFiles(table, locations, SCHEMA).digest();
          assertThat(generic.rows()).isEqualTo(3000);
          assertThat(ColumnarDigest.ofFiles(table, locations, SCHEMA)).as(name).isEqualTo(generic);
          assertThat(ColumnarDigest.ofFiles(table, locations, SCHEMA, byRowGroup))
              .as(name + ", a row group at a time")
              .isEqualTo(generic);
        }
      }
    }
  }

  private void everyPageLayout(
      dev.resurfacer.content.DigestScratch shared, dev.resurfacer.content.DigestScratch byRowGroup)
      throws Exception {
    Schema narrow = SCHEMA.select("id", "s", "small");
    for (String pageVersion : List.of("v1", "v2")) {
      for (String dictBytes : List.of("2097152", "512")) {
        for (String rowGroupBytes : List.of("134217728", "16384")) {
          String name = "pages_" + pageVersion + "_" + dictBytes + "_" + rowGroupBytes;
          Table table = catalog
              .buildTable(TableIdentifier.of("db", name), SCHEMA)
              .withPartitionSpec(PartitionSpec.unpartitioned())
              .withProperty(TableProperties.PARQUET_PAGE_VERSION, pageVersion)
              .withProperty(TableProperties.PARQUET_DICT_SIZE_BYTES, dictBytes)
              .withProperty(TableProperties.PARQUET_PAGE_ROW_LIMIT, "1500")
              .withProperty(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, rowGroupBytes)
              .create();
          List<String> locations = new ArrayList<>();
          int rowGroups = 0;
          for (int f = 0; f < 2; f++) {
            DataFile file = TableWrites.writeData(table, rows(f * 7000L, 7000)).get(0);
            table.newAppend().appendFile(file).commit();
            locations.add(file.location());
            try (org.apache.parquet.hadoop.ParquetFileReader reader =
                org.apache.parquet.hadoop.ParquetFileReader.open(
                    ParquetFooters.parquetFile(table.io().newInputFile(file.location())))) {
              rowGroups += reader.getRowGroups().size();
            }
          }
          if (!rowGroupBytes.equals("134217728")) {
            assertThat(rowGroups).as(name + ": row groups in two files").isGreaterThan(4);
          }
          RowDigest generic = Checksum.ofFiles(table, locations, SCHEMA).digest();
          assertThat(generic.rows()).isEqualTo(14000);
          assertThat(ColumnarDigest.ofFiles(table, locations, SCHEMA))
              .as(pageVersion + ", dictionary of " + dictBytes + " bytes, row groups of "
                  + rowGroupBytes + " bytes")
              .isEqualTo(generic);
          assertThat(ColumnarDigest.ofFiles(table, locations, SCHEMA, shared))
              .as(name + ", a shared scratch")
              .isEqualTo(generic);
          assertThat(ColumnarDigest.ofFiles(table, locations, SCHEMA, byRowGroup))
              .as(name + ", a row group at a time")
              .isEqualTo(generic);
          assertThat(ColumnarDigest.ofFiles(table, locations, narrow, shared))
              .as(name + ", three columns, a shared scratch")
              .isEqualTo(Checksum.ofFiles(table, locations, narrow).digest());
          RowDigest even = ColumnarDigest.ofFiles(table, locations, SCHEMA, shared, 0, 2);
          RowDigest odd = ColumnarDigest.ofFiles(table, locations, SCHEMA, byRowGroup, 1, 2);
          if (!rowGroupBytes.equals("134217728")) {
            assertThat(odd.rows()).as(name + ": the odd row groups' rows").isPositive();
          }
          assertThat(even.plus(odd))
              .as(name + ", even and odd row groups apart")
              .isEqualTo(generic);
        }
      }
    }
  }

  /**
   * Plain and dictionary pages and blocks with no null and no deleted row, as a compaction's inputs
   * mostly are: the one-pass scalar loops, which this module's tests run (its pom), and the hashes
   * added to the rows as they are made; an optional column without a null too.
   */
  @Test
  void plainBlocksWithoutNullsDigestAsTheGenericReaderReadsThem() throws Exception {
    Schema required = new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.required(2, "i", Types.IntegerType.get()),
        Types.NestedField.required(3, "d", Types.DoubleType.get()),
        Types.NestedField.required(4, "u", Types.UUIDType.get()),
        Types.NestedField.required(5, "s", Types.StringType.get()),
        Types.NestedField.required(6, "country", Types.StringType.get()),
        Types.NestedField.required(7, "level", Types.LongType.get()),
        Types.NestedField.optional(8, "never_null", Types.LongType.get()),
        Types.NestedField.required(9, "small", Types.DecimalType.of(9, 2)),
        Types.NestedField.required(10, "mid", Types.DecimalType.of(18, 3)),
        Types.NestedField.required(11, "f", Types.FloatType.get()),
        Types.NestedField.required(12, "rank", Types.IntegerType.get()));
    Table table = catalog
        .buildTable(TableIdentifier.of("db", "no_nulls"), required)
        .withPartitionSpec(PartitionSpec.unpartitioned())
        .withProperty(TableProperties.PARQUET_DICT_SIZE_BYTES, "512")
        .create();
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < 10_000; id++) {
      Record r = GenericRecord.create(required);
      r.setField("id", id * 0x9E3779B97F4A7C15L);
      r.setField("i", (int) (id * 7 - 30_000));
      r.setField("d", id % 7 == 0 ? -0.0 : id / -7.0);
      r.setField("u", new UUID(id * 31, -id));
      r.setField("s", "https://example.com/p/" + id);
      // few distinct values: dictionary pages
      r.setField("country", "country-" + id % 7);
      r.setField("level", id % 5 * 1_000_003L);
      r.setField("never_null", id % 9 - 4);
      r.setField("small", java.math.BigDecimal.valueOf(id * 13, 2));
      r.setField("mid", java.math.BigDecimal.valueOf(-id * 1_000_000_007L, 3));
      r.setField("f", id % 11 == 0 ? -0.0f : id / 3.0f);
      r.setField("rank", (int) (id % 6) - 3);
      rows.add(r);
    }
    DataFile file = TableWrites.writeData(table, rows).get(0);
    table.newAppend().appendFile(file).commit();
    List<String> locations = List.of(file.location());
    RowDigest generic = Checksum.ofFiles(table, locations, required).digest();
    assertThat(generic.rows()).isEqualTo(10_000);
    assertThat(ColumnarDigest.ofFiles(table, locations, required)).isEqualTo(generic);
  }

  /** The five faults a rewrite could make, each written to a file the columnar reader reads, each named by the digest. */
  @Test
  void theColumnarDigestNamesEveryFault() {
    Table table = catalog
        .buildTable(TableIdentifier.of("db", "faults"), SCHEMA)
        .withPartitionSpec(PartitionSpec.unpartitioned())
        .create();
    List<String> original =
        List.of(TableWrites.writeData(table, rows(0, 300)).get(0).location());
    RowDigest before = ColumnarDigest.ofFiles(table, original, SCHEMA);
    List<String> names = SCHEMA.columns().stream().map(Types.NestedField::name).toList();
    Map<String, java.util.function.Consumer<List<Record>>> faults = new java.util.LinkedHashMap<>();
    faults.put(
        "values differ in column d",
        rows -> rows.stream()
            .filter(r -> r.getField("d") != null
                && Double.doubleToRawLongBits((Double) r.getField("d")) == Long.MIN_VALUE)
            .findFirst()
            .orElseThrow()
            .setField("d", 0.0));
    faults.put("values differ in column s", rows -> rows.forEach(r -> r.setField("s", null)));
    faults.put("combined into different rows", rows -> {
      Object first = rows.get(1).getField("u");
      rows.get(1).setField("u", rows.get(2).getField("u"));
      rows.get(2).setField("u", first);
    });
    faults.put("300 live input rows, 299 written", rows -> rows.remove(7));
    faults.put("300 live input rows, 301 written", rows -> rows.add(rows.get(7).copy()));
    faults.forEach((message, fault) -> {
      List<Record> rows = rows(0, 300);
      fault.accept(rows);
      List<String> changed = List.of(TableWrites.writeData(table, rows).get(0).location());
      RowDigest after = ColumnarDigest.ofFiles(table, changed, SCHEMA);
      assertThat(after)
          .as(message)
          .isEqualTo(Checksum.ofFiles(table, changed, SCHEMA).digest());
      assertThat(before.differenceFrom(after, names))
          .as(message)
          .hasValueSatisfying(d -> assertThat(d).contains(message));
    });
  }

  @Test
  void aFileWithoutAColumnOfTheSchemaIsRefused() {
    Table table =
        catalog.buildTable(TableIdentifier.of("db", "evolved"), SCHEMA).create();
    DataFile file = TableWrites.writeData(table, rows(0, 10)).get(0);
    table.newAppend().appendFile(file).commit();
    table.updateSchema().addColumn("added", Types.LongType.get()).commit();
    assertThatThrownBy(
            () -> ColumnarDigest.ofFiles(table, List.of(file.location()), table.schema()))
        .isInstanceOf(ColumnarDigest.Unreadable.class)
        .hasMessageContaining("added");
  }

  private static List<Record> rows(long start, int n) {
    List<Record> out = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      long id = start + k;
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", id);
      boolean nulls = id % 11 == 5;
      r.setField("i", nulls ? null : (int) (id * 7 - 300));
      r.setField("b", nulls ? null : id % 2 == 0);
      r.setField(
          "f",
          nulls
              ? null
              : id % 13 == 0 ? -0.0f : id % 13 == 1 ? Float.intBitsToFloat(0x7fc00001) : id / 3.0f);
      r.setField(
          "d",
          nulls
              ? null
              : id % 7 == 0 ? -0.0 : id % 7 == 1 ? 0.0 : id % 7 == 2 ? Double.NaN : id / -7.0);
      r.setField("day", nulls ? null : LocalDate.ofEpochDay(id - 2000));
      r.setField(
          "t", nulls ? null : LocalTime.ofNanoOfDay((id * 1_000_003L % 86_400_000_000L) * 1000));
      r.setField(
          "ts",
          nulls
              ? null
              : LocalDateTime.ofEpochSecond(
                  id * 3600 - 100_000_000, (int) (id % 1000) * 1000, ZoneOffset.UTC));
      r.setField(
          "tz",
          nulls
              ? null
              : OffsetDateTime.of(
                  LocalDateTime.ofEpochSecond(id * 60, 123_000, ZoneOffset.UTC), ZoneOffset.UTC));
      r.setField("s", nulls ? null : id % 3 == 0 ? "" : "é✓ https://example.com/p/" + id);
      r.setField("u", nulls ? null : new UUID(id * 31, -id));
      r.setField("fx", nulls ? null : new byte[] {(byte) id, (byte) (id >> 8), 0});
      r.setField(
          "bin",
          nulls
              ? null
              : ByteBuffer.wrap(("bin" + id).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
      r.setField("small", nulls ? null : BigDecimal.valueOf(id * 17 - 5000, 2));
      r.setField("mid", nulls ? null : BigDecimal.valueOf(id * 1_000_000_007L, 3));
      r.setField(
          "big",
          nulls
              ? null
              : new BigDecimal("123456789012345678901.00001")
                  .add(BigDecimal.valueOf(id, 5))
                  .negate());
      out.add(r);
    }
    return out;
  }
}
