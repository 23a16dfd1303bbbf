package dev.resurfacer.iceberg.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderComparators;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class OrderingTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "x", Types.LongType.get()),
      Types.NestedField.optional(3, "y", Types.LongType.get()),
      Types.NestedField.optional(4, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(5, "w", Types.DoubleType.get()));

  @TempDir
  Path dir;

  JdbcCatalog catalog;

  @BeforeEach
  void setUp() {
    catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
  }

  /** 8 files of random rows: every file spans the whole range of every column. */
  private Table randomTable(String name, int rowsPerFile) {
    Table table = catalog
        .buildTable(TableIdentifier.of("db", name), SCHEMA)
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();
    Random rng = new Random(11);
    for (int f = 0; f < 8; f++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < rowsPerFile; i++) {
        Record r = GenericRecord.create(SCHEMA);
        r.setField("id", (long) f * rowsPerFile + i);
        r.setField("x", (long) rng.nextInt(1000));
        r.setField("y", i % 50 == 0 ? null : (long) rng.nextInt(1000));
        r.setField(
            "ts",
            java.time.LocalDateTime.of(2026, 1, 1, 0, 0).plusMinutes(rng.nextInt(60 * 24 * 10)));
        r.setField("w", rng.nextGaussian());
        rows.add(r);
      }
      table.newAppend().appendFile(TableWrites.writeData(table, rows).get(0)).commit();
    }
    table.refresh();
    return table;
  }

  private static CompactionOptions opts(Ordering ordering, CompactionOptions.Runner runner) {
    return CompactionOptions.defaults()
        .withOrdering(ordering)
        .withRunner(runner)
        .withOption("rewrite-all", "true")
        .withOption("target-file-size-bytes", Long.toString(48 * 1024));
  }

  @ParameterizedTest
  @EnumSource(
      value = CompactionOptions.Runner.class,
      names = {"DUCKDB", "GENERIC"})
  void sortByTheDeclaredOrderStampsItAndWritesDisjointRanges(CompactionOptions.Runner runner)
      throws IOException {
    Table table = randomTable("sorted", 4000);
    table.replaceSortOrder().asc("x").asc("id").commit();
    table.refresh();
    List<String> before = Rows.sortedStrings(table);

    CompactionResult r =
        Compaction.execute(Compaction.plan(table, opts(new Ordering.Sort(null), runner)));

    assertThat(r.groups())
        .singleElement()
        .satisfies(g ->
            assertThat(g.status()).as(g.message()).isEqualTo(CompactionResult.Status.COMMITTED));
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    List<DataFile> files = liveFiles(table);
    assertThat(files)
        .hasSizeGreaterThan(2)
        .allSatisfy(f -> assertThat(f.recordCount()).as("no empty files").isPositive());
    assertThat(files)
        .allSatisfy(f -> assertThat(f.sortOrderId()).isEqualTo(table.sortOrder().orderId()));
    assertDisjointRanges(files, 2);
    for (DataFile f : files) {
      assertSortedWithin(table, f, table.sortOrder());
    }
  }

  @Test
  void anUndeclaredSortByIsAppliedButNotStamped() throws IOException {
    Table table = randomTable("unstamped", 2000);
    table.replaceSortOrder().asc("x").commit();
    CompactionResult r = Compaction.execute(Compaction.plan(
        table, opts(new Ordering.Sort("y DESC NULLS LAST, id"), CompactionOptions.Runner.AUTO)));
    assertThat(r.allCommitted()).isTrue();
    table.refresh();
    assertThat(liveFiles(table)).allSatisfy(f -> assertThat(f.sortOrderId()).isZero());
    SortOrder yDesc = SortOrders.parse(table.schema(), "y DESC NULLS LAST, id");
    for (DataFile f : liveFiles(table)) {
      assertSortedWithin(table, f, yDesc);
    }
    // declaring that order makes the same request stamp it
    table
        .replaceSortOrder()
        .desc("y", org.apache.iceberg.NullOrder.NULLS_LAST)
        .asc("id")
        .commit();
    table.refresh();
    CompactionPlan plan = Compaction.plan(
            table,
            opts(new Ordering.Sort("y DESC NULLS LAST, id"), CompactionOptions.Runner.AUTO)
                .withOption("rewrite-all", "true"))
        .readout();
    assertThat(plan.ordering()).contains("order id " + table.sortOrder().orderId());
  }

  static final Schema ODD_NAMES = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "letter/abc", Types.StringType.get()),
      Types.NestedField.optional(3, "with space", Types.LongType.get()),
      Types.NestedField.optional(4, "a.b", Types.LongType.get()),
      Types.NestedField.optional(
          5,
          "nested",
          Types.StructType.of(Types.NestedField.optional(6, "c:d", Types.LongType.get()))));

  /** Column references in --sort-by and --columns: one parser, quoted as table names are. */
  @Test
  void sortByAndZOrderNameColumnsWithSlashesBlanksDotsAndColonsTheSameWay() throws IOException {
    Schema s = ODD_NAMES;
    assertThat(SortOrders.parse(s, "letter/abc").fields().get(0).sourceId()).isEqualTo(2);
    assertThat(SortOrders.parse(s, "`letter/abc` DESC").fields().get(0).sourceId())
        .isEqualTo(2);
    assertThat(SortOrders.parse(s, "\"letter/abc\" DESC NULLS FIRST")
            .fields()
            .get(0)
            .nullOrder())
        .isEqualTo(org.apache.iceberg.NullOrder.NULLS_FIRST);
    assertThat(SortOrders.parse(s, "`with space` ASC, id").fields())
        .extracting(org.apache.iceberg.SortField::sourceId)
        .containsExactly(3, 1);
    assertThat(SortOrders.parse(s, "`a.b`").fields().get(0).sourceId()).isEqualTo(4);
    assertThat(SortOrders.parse(s, "a.b").fields().get(0).sourceId())
        .as("no struct a: the dotted name")
        .isEqualTo(4);
    assertThat(SortOrders.parse(s, "nested.`c:d` DESC").fields().get(0).sourceId())
        .isEqualTo(6);
    assertThat(SortOrders.parse(s, "bucket(4, `letter/abc`), truncate(2, letter/abc) DESC")
            .fields())
        .extracting(f -> f.transform().toString())
        .containsExactly("bucket[4]", "truncate[2]");
    assertThatThrownBy(() -> SortOrders.parse(s, "with space"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("no column 'with'");
    assertThatThrownBy(() -> SortOrders.parse(s, "`letter/abc"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("unclosed");

    Table table = catalog
        .buildTable(TableIdentifier.of("db", "odd"), s)
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();
    for (int f = 0; f < 4; f++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        Record r = GenericRecord.create(s);
        r.setField("id", (long) f * 200 + i);
        r.setField("letter/abc", Character.toString('a' + (i * 7 + f) % 26) + i);
        r.setField("with space", (long) (i * 31 % 97));
        r.setField("a.b", (long) i);
        rows.add(r);
      }
      table.newAppend().appendFile(TableWrites.writeData(table, rows).get(0)).commit();
    }
    List<String> before = Rows.sortedStrings(table);
    for (Ordering ordering : List.of(
        new Ordering.Sort("letter/abc"),
        new Ordering.Sort("`letter/abc` DESC, `with space`"),
        new Ordering.ZOrder(List.of("letter/abc", "`with space`")),
        new Ordering.ZOrder(List.of("\"letter/abc\"", "a.b")))) {
      CompactionResult r =
          Compaction.execute(Compaction.plan(table, opts(ordering, CompactionOptions.Runner.AUTO)));
      assertThat(r.allCommitted()).as(ordering.toString()).isTrue();
      assertThat(r.verification()).isEqualTo("content");
      assertThat(Rows.sortedStrings(table)).as(ordering.toString()).isEqualTo(before);
    }
    table.refresh();
    for (DataFile f : liveFiles(table)) {
      assertThat(f.recordCount()).isPositive();
    }
    // the last sort, then z-order: the files hold the z-order now; a sort by letter/abc reads back
    // sorted
    Compaction.execute(Compaction.plan(
        table, opts(new Ordering.Sort("`letter/abc`"), CompactionOptions.Runner.AUTO)));
    table.refresh();
    for (DataFile f : liveFiles(table)) {
      assertSortedWithin(table, f, SortOrders.parse(table.schema(), "letter/abc"));
    }
  }

  @Test
  void transformSortFieldsAreAppliedAsTransforms() throws IOException {
    Table table = randomTable("transforms", 2000);
    for (String sortBy :
        List.of("day(ts) DESC, x", "bucket(4, id), id", "truncate(100, x), y DESC")) {
      CompactionResult r = Compaction.execute(Compaction.plan(
          table,
          opts(new Ordering.Sort(sortBy), CompactionOptions.Runner.AUTO)
              .withOption("rewrite-all", "true")));
      assertThat(r.allCommitted()).as(sortBy).isTrue();
      table.refresh();
      SortOrder order = SortOrders.parse(table.schema(), sortBy);
      for (DataFile f : liveFiles(table)) {
        assertSortedWithin(table, f, order);
      }
      assertThat(r.groups().get(0).runner())
          .as(sortBy)
          .isEqualTo(sortBy.startsWith("bucket") ? "generic" : "duckdb");
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = CompactionOptions.Runner.class,
      names = {"DUCKDB", "GENERIC"})
  void zOrderMakesARangeFilterOnTheSecondColumnReadFewerFiles(CompactionOptions.Runner runner)
      throws IOException {
    Table table = randomTable("z_" + runner.name().toLowerCase(java.util.Locale.ROOT), 4000);
    Expression onY =
        Expressions.and(Expressions.greaterThanOrEqual("y", 100L), Expressions.lessThan("y", 200L));
    long filesBefore = filesRead(table, onY);
    List<String> before = Rows.sortedStrings(table);

    CompactionResult r = Compaction.execute(
        Compaction.plan(table, opts(new Ordering.ZOrder(List.of("x", "y")), runner)));

    assertThat(r.allCommitted()).isTrue();
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    long total = liveFiles(table).size();
    long filesAfter = filesRead(table, onY);
    assertThat(filesBefore).isEqualTo(8);
    assertThat(total).isGreaterThan(4);
    assertThat(filesAfter).as("files read after z-order, of %d", total).isLessThan(total);
    assertThat(liveFiles(table)).allSatisfy(f -> assertThat(f.sortOrderId()).isZero());
  }

  static final Schema BYTES = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "u", Types.UUIDType.get()),
      Types.NestedField.optional(3, "b", Types.BinaryType.get()),
      Types.NestedField.optional(4, "f", Types.FixedType.ofLength(5)));

  /**
   * Binary, uuid and fixed columns z-order by their 8-byte prefixes; the content read back is the
   * same, value for value. DuckDB orders uuid and binary itself (without a fixed column, which it
   * cannot write); the generic runner orders all three.
   */
  @ParameterizedTest
  @EnumSource(
      value = CompactionOptions.Runner.class,
      names = {"AUTO", "GENERIC"})
  void zOrderOfBinaryUuidAndFixedColumnsKeepsTheContentAndOrdersEachFile(
      CompactionOptions.Runner runner) throws IOException {
    boolean duck = runner == CompactionOptions.Runner.AUTO;
    Schema schema = duck ? BYTES.select("id", "u", "b") : BYTES;
    Table table = catalog
        .buildTable(
            TableIdentifier.of("db", "bytes_" + runner.name().toLowerCase(java.util.Locale.ROOT)),
            schema)
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();
    Random rng = new Random(5);
    for (int f = 0; f < 6; f++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        Record r = GenericRecord.create(schema);
        r.setField("id", (long) f * 300 + i);
        r.setField("u", i % 37 == 0 ? null : new java.util.UUID(rng.nextLong(), rng.nextLong()));
        byte[] b = new byte[rng.nextInt(12)];
        rng.nextBytes(b);
        r.setField("b", i % 41 == 0 ? null : java.nio.ByteBuffer.wrap(b));
        byte[] fixed = new byte[5];
        rng.nextBytes(fixed);
        if (!duck) {
          r.setField("f", fixed);
        }
        rows.add(r);
      }
      table.newAppend().appendFile(TableWrites.writeData(table, rows).get(0)).commit();
    }
    List<String> before = dev.resurfacer.iceberg.testing.Content.of(table);
    for (List<String> columns : List.of(List.of("u", "b"), List.of(duck ? "b" : "f", "id"))) {
      CompactionResult r =
          Compaction.execute(Compaction.plan(table, opts(new Ordering.ZOrder(columns), runner)));
      assertThat(r.allCommitted()).as(columns + ": " + r.groups()).isTrue();
      assertThat(r.verification()).isEqualTo("content");
      assertThat(r.groups())
          .extracting(CompactionResult.Group::runner)
          .containsOnly(duck ? "duckdb" : "generic");
      assertThat(dev.resurfacer.iceberg.testing.Content.of(table))
          .as(columns.toString())
          .isEqualTo(before);
      table.refresh();
      List<Types.NestedField> fields =
          columns.stream().map(c -> table.schema().findField(c)).toList();
      for (DataFile file : liveFiles(table)) {
        byte[] previous = null;
        try (CloseableIterable<Record> rows = Parquet.read(table.io().newInputFile(file.location()))
            .project(table.schema())
            .createReaderFunc(fs -> GenericParquetReaders.buildReader(table.schema(), fs))
            .build()) {
          for (Record row : rows) {
            byte[] z = ZValues.zValue(
                fields, fields.stream().map(fl -> row.getField(fl.name())).toArray());
            if (previous != null) {
              assertThat(ZValues.compareUnsigned(previous, z))
                  .as(columns + " in " + file.location())
                  .isLessThanOrEqualTo(0);
            }
            previous = z;
          }
        }
      }
    }
  }

  @Test
  void zOrderRefusesBadColumnsAndIgnoresIdentityPartitionColumns() {
    Table table = catalog
        .buildTable(TableIdentifier.of("db", "zp"), SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).identity("x").build())
        .create();
    assertThatThrownBy(() -> Compaction.plan(
            table, opts(new Ordering.ZOrder(List.of("nope", "y")), CompactionOptions.Runner.AUTO)))
        .isInstanceOf(UsageException.class)
        .hasMessageStartingWith("--columns: no column 'nope' in test.db.zp (columns: ");
    assertThatThrownBy(() -> Compaction.plan(
            table, opts(new Ordering.ZOrder(List.of("x")), CompactionOptions.Runner.AUTO)))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("every z-order column is an identity partition column");
    CompactionPlan plan = Compaction.plan(
            table, opts(new Ordering.ZOrder(List.of("x", "y", "w")), CompactionOptions.Runner.AUTO))
        .readout();
    assertThat(plan.warnings())
        .containsExactly("z-order ignores x: it is an identity partition column");
    assertThat(plan.ordering()).isEqualTo("z-order y, w");
    assertThatThrownBy(() ->
            Compaction.plan(table, opts(new Ordering.Sort(null), CompactionOptions.Runner.AUTO)))
        .hasMessageContaining("declares no sort order: pass --sort-by");
    assertThatThrownBy(() -> Compaction.plan(
            table, opts(new Ordering.Sort("nosuch ASC"), CompactionOptions.Runner.AUTO)))
        .isInstanceOf(UsageException.class)
        .hasMessageStartingWith("--sort-by:");
    assertThatThrownBy(() -> Compaction.plan(
            table, opts(new Ordering.Sort("frob(ts)"), CompactionOptions.Runner.AUTO)))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("unknown transform 'frob'");
  }

  @Test
  void theExternalSortSpillsAndMergesInOrder() throws IOException {
    Schema schema = SCHEMA;
    ResolvedOrdering.Sorted order = new ResolvedOrdering.Sorted(
        SortOrder.builderFor(schema).asc("x").asc("id").build(), 0);
    Random rng = new Random(3);
    List<Record> all = new ArrayList<>();
    try (ExternalSort sort = new ExternalSort(schema, order, 1, dir)) {
      for (int i = 0; i < 30_000; i++) {
        Record r = GenericRecord.create(schema);
        r.setField("id", (long) i);
        r.setField("x", (long) rng.nextInt(500));
        all.add(r);
        sort.add(r);
      }
      List<Record> out = new ArrayList<>();
      sort.drainTo(out::add);
      all.sort(Comparator.comparing((Record r) -> (Long) r.getField("x"))
          .thenComparing(r -> (Long) r.getField("id")));
      assertThat(out.stream().map(r -> r.getField("id")).toList())
          .isEqualTo(all.stream().map(r -> r.getField("id")).toList());
      try (var entries = java.nio.file.Files.list(dir)) {
        assertThat(entries
                .filter(p -> p.getFileName().toString().startsWith("sort-"))
                .findFirst()
                .orElseThrow()
                .toFile()
                .list())
            .as("runs were spilled")
            .hasSizeGreaterThan(1);
      }
    }
  }

  private static long filesRead(Table table, Expression filter) throws IOException {
    try (CloseableIterable<FileScanTask> tasks = table.newScan().filter(filter).planFiles()) {
      long n = 0;
      for (FileScanTask ignored : tasks) {
        n++;
      }
      return n;
    }
  }

  private static List<DataFile> liveFiles(Table table) throws IOException {
    List<DataFile> out = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().includeColumnStats().planFiles()) {
      tasks.forEach(t -> out.add(t.file()));
    }
    return out;
  }

  /** Sorted by the first key: each file's [min, max] of that column starts at or after the previous file's max. */
  private static void assertDisjointRanges(List<DataFile> files, int fieldId) {
    List<long[]> ranges = new ArrayList<>();
    for (DataFile f : files) {
      long lo = Conversions.fromByteBuffer(Types.LongType.get(), f.lowerBounds().get(fieldId));
      long hi = Conversions.fromByteBuffer(Types.LongType.get(), f.upperBounds().get(fieldId));
      ranges.add(new long[] {lo, hi});
    }
    ranges.sort(Comparator.comparingLong(r -> r[0]));
    for (int i = 1; i < ranges.size(); i++) {
      // equal keys may straddle a file boundary; ranges never interleave
      assertThat(ranges.get(i)[0])
          .as("file ranges %s", ranges.stream().map(java.util.Arrays::toString).toList())
          .isGreaterThanOrEqualTo(ranges.get(i - 1)[1]);
    }
  }

  private static void assertSortedWithin(Table table, DataFile file, SortOrder order) {
    Comparator<org.apache.iceberg.StructLike> cmp =
        SortOrderComparators.forSchema(table.schema(), order);
    InternalRecordWrapper a = new InternalRecordWrapper(table.schema().asStruct());
    InternalRecordWrapper b = new InternalRecordWrapper(table.schema().asStruct());
    Record previous = null;
    try (CloseableIterable<Record> rows = Parquet.read(table.io().newInputFile(file.location()))
        .project(table.schema())
        .createReaderFunc(fs -> GenericParquetReaders.buildReader(table.schema(), fs))
        .build()) {
      for (Record r : rows) {
        if (previous != null) {
          assertThat(cmp.compare(a.wrap(previous), b.wrap(r)))
              .as("%s then %s in %s", previous, r, order)
              .isLessThanOrEqualTo(0);
        }
        previous = r.copy();
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
