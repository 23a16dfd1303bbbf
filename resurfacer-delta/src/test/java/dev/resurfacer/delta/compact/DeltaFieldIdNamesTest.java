package dev.resurfacer.delta.compact;

import static dev.resurfacer.delta.DeltaSpark.sql;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.delta.DeltaSpark;
import dev.resurfacer.delta.TestTables;
import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.kernel.KernelIterators;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.scan.LiveFiles;
import dev.resurfacer.delta.scan.LogicalRows;
import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.table.LocalStorage;
import io.delta.kernel.Operation;
import io.delta.kernel.Transaction;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.DataFileStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroup;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An {@code id}-mode table whose data files store the field ids under other names than the
 * table's physical ones (as a table converted from Iceberg, or a writer naming columns by their
 * logical names, has them): Delta reads them by field id, DuckDB would read them by name and get
 * NULLs. The planner sends such a table to Kernel's runner, saying why; a table whose files store
 * the physical names stays on DuckDB.
 */
class DeltaFieldIdNamesTest {
  @TempDir
  static Path shared;

  @TempDir
  Path dir;

  private static Path source;

  /** Which names a foreign writer gave the columns it tagged with the table's field ids. */
  enum Names {
    /** logical names at every level */
    LOGICAL(true, true),
    /** physical names at the top level, logical ones inside the struct */
    LOGICAL_NESTED(false, true),
    /** the table's physical names everywhere, as delta-spark writes them */
    PHYSICAL(false, false),
    /** the physical names, and one more column named as {@code v}'s physical name in upper case */
    CASE_TWIN(false, false);

    final boolean top;
    final boolean nested;

    Names(boolean top, boolean nested) {
      this.top = top;
      this.nested = nested;
    }
  }

  @BeforeAll
  static void writeTable() {
    source = shared.resolve("ids");
    String n = DeltaSpark.table(source);
    sql("CREATE TABLE " + n + " (id BIGINT, v STRING, s STRUCT<a: INT, b: STRING>) USING delta"
        + " TBLPROPERTIES ('delta.columnMapping.mode' = 'id')");
    // two files, so the foreign one shares a bin with Spark's
    sql("INSERT INTO " + n
        + " SELECT /*+ REPARTITION(2) */ id, concat('v', id), named_struct('a', CAST(id AS INT), 'b', concat('b', id))"
        + " FROM range(0, 100)");
  }

  @ParameterizedTest(name = "{0} names")
  @EnumSource(
      value = Names.class,
      names = {"LOGICAL", "LOGICAL_NESTED"})
  void filesStoringFieldIdsUnderOtherNamesAreCompactedByKernel(Names names) throws Exception {
    DeltaTable table = copyWithForeignFile(names);
    Path t = table.localRoot();
    List<String> spark = DeltaSpark.typedRows(t);
    List<String> kernel = kernelRows(table);
    assertThat(spark)
        .as("Spark reads the foreign file by field id")
        .hasSize(150)
        .anyMatch(r -> r.contains("id:bigint=1049/Long")
            && r.contains("v:string=f1049/String")
            && r.contains("[1049,b1049]"));
    assertThat(kernel)
        .hasSize(150)
        .contains("id=long:1049 v=string:f1049 s=struct(int:1049,string:b1049)");

    DataColumns columns = DataColumns.of(table.latest());
    String stored = names.top ? "id" : columns.physicalOf("s").getName() + ".a";
    String physical = names.top
        ? columns.physicalOf("id").getName()
        : columns.physicalOf("s").getName() + "."
            + ((StructType) columns.physicalOf("s").getDataType()).at(0).getName();
    CompactionPlan plan =
        DeltaCompactor.plan(table, CompactionOptions.defaults()).preview();
    assertThat(plan.runner()).isEqualTo("kernel");
    assertThat(plan.runnerReason())
        .startsWith("DuckDB cannot be exact here: data file part-foreign-")
        .contains(" stores field id " + (names.top ? 1 : 4) + " as " + stored
            + ", not under the table's physical name " + physical
            + " (DuckDB reads by name, Delta by field id); Kernel's runner works in the heap");
    assertThatThrownBy(() -> DeltaCompactor.plan(
            table, CompactionOptions.defaults().runner(CompactionOptions.Runner.DUCKDB)))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("cannot rewrite")
        .hasMessageContaining("part-foreign-");

    CompactionResult r = DeltaCompactor.execute(
        DeltaCompactor.plan(table, CompactionOptions.defaults()), Clock.systemUTC());
    assertThat(r.failedBins()).isEmpty();
    assertThat(r.plan().runner()).isEqualTo("kernel");
    assertThat(r.removedFiles()).isEqualTo(3);
    assertThat(r.addedFiles()).isEqualTo(1);
    assertThat(DeltaSpark.typedRows(t)).isEqualTo(spark);
    assertThat(kernelRows(table)).isEqualTo(kernel);
    List<LiveFile> live = LiveFiles.of(table, table.latest());
    assertThat(FieldIdNames.mismatch(
            columns.physical(), List.of(new CompactionPlan.Bin(Map.of(), live))))
        .as("the new file stores the physical names")
        .isEmpty();
  }

  @Test
  void filesStoringThePhysicalNamesStayOnDuckDb() throws Exception {
    DeltaTable table = copyWithForeignFile(Names.PHYSICAL);
    List<String> kernel = kernelRows(table);
    assertThat(kernel)
        .hasSize(150)
        .contains("id=long:1049 v=string:f1049 s=struct(int:1049,string:b1049)");

    assertThat(
            DeltaCompactor.plan(table, CompactionOptions.defaults()).preview().runner())
        .isEqualTo("duckdb");
    CompactionResult r = DeltaCompactor.execute(
        DeltaCompactor.plan(table, CompactionOptions.defaults()), Clock.systemUTC());
    assertThat(r.failedBins()).isEmpty();
    assertThat(r.plan().runner()).isEqualTo("duckdb");
    assertThat(r.plan().runnerReason()).startsWith("memory limit");
    assertThat(r.removedFiles()).isEqualTo(3);
    assertThat(kernelRows(table)).isEqualTo(kernel);
  }

  @Test
  void aFileWithColumnsDifferingOnlyInCaseGoesToKernel() throws Exception {
    DeltaTable table = copyWithForeignFile(Names.CASE_TWIN);
    List<String> kernel = kernelRows(table);
    assertThat(kernel)
        .hasSize(150)
        .contains("id=long:1049 v=string:f1049 s=struct(int:1049,string:b1049)");
    String v = DataColumns.of(table.latest()).physicalOf("v").getName();

    CompactionPlan plan =
        DeltaCompactor.plan(table, CompactionOptions.defaults()).preview();
    assertThat(plan.runner()).isEqualTo("kernel");
    assertThat(plan.runnerReason())
        .contains(" stores columns " + v + " and " + v.toUpperCase(Locale.ROOT)
            + ", which DuckDB does not tell apart");
    CompactionResult r = DeltaCompactor.execute(
        DeltaCompactor.plan(table, CompactionOptions.defaults()), Clock.systemUTC());
    assertThat(r.failedBins()).isEmpty();
    assertThat(r.removedFiles()).isEqualTo(3);
    assertThat(kernelRows(table)).isEqualTo(kernel);
  }

  /**
   * A copy of the source table plus one file of 50 rows (ids 1000..1049) written by DuckDB with the
   * table's field ids under {@code names}, appended by Kernel as another writer would.
   */
  private DeltaTable copyWithForeignFile(Names names) throws Exception {
    DeltaTable table = DeltaTables.open(
        names.name(), TestTables.copy(source, dir.resolve(names.name())).toString(), dir);
    DataColumns columns = DataColumns.of(table.latest());
    StructType stored = renamed(columns.logical(), columns.physical(), names.top, names.nested);
    StructType struct = (StructType) stored.at(2).getDataType();
    Path file = table.localRoot().resolve("part-foreign-" + UUID.randomUUID() + ".parquet");
    if (names == Names.CASE_TWIN) {
      writeWithCaseTwin(stored, file);
    } else {
      try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
          Statement st = c.createStatement()) {
        st.execute("COPY (SELECT range AS " + DuckDbBinRunner.ident(stored.at(0).getName())
            + ", 'f' || range AS "
            + DuckDbBinRunner.ident(stored.at(1).getName()) + ", struct_pack("
            + DuckDbBinRunner.ident(struct.at(0).getName())
            + " := range::INTEGER, " + DuckDbBinRunner.ident(struct.at(1).getName())
            + " := 'b' || range) AS "
            + DuckDbBinRunner.ident(stored.at(2).getName()) + " FROM range(1000, 1050)) TO "
            + DuckDbBinRunner.string(file.toString())
            + " (FORMAT parquet, FIELD_IDS " + DuckDbBinRunner.fieldIds(stored) + ")");
      }
    }
    Engine engine = table.engine();
    Transaction txn = table
        .latest()
        .buildUpdateTableTransaction("foreign-writer", Operation.WRITE)
        .build(engine);
    Row txnState = txn.getTransactionState(engine);
    DataFileStatus status = new DataFileStatus(
        table.storage().kernelPath(LocalStorage.of(file)),
        Files.size(file),
        Files.getLastModifiedTime(file).toMillis(),
        Optional.empty());
    var actions = Transaction.generateAppendActions(
        engine,
        txnState,
        KernelIterators.of(List.of(status)),
        Transaction.getWriteContext(engine, txnState, Map.of()));
    txn.commit(engine, CloseableIterable.inMemoryIterable(actions));
    return table;
  }

  /**
   * The same rows through parquet-mr's example writer, with one more column (field id 99) named as
   * {@code v}'s physical name in upper case: DuckDB refuses to write such a file.
   */
  private static void writeWithCaseTwin(StructType stored, Path file) throws Exception {
    StructType struct = (StructType) stored.at(2).getDataType();
    String twin = stored.at(1).getName().toUpperCase(Locale.ROOT);
    MessageType schema = Types.buildMessage()
        .optional(PrimitiveTypeName.INT64)
        .id(id(stored.at(0)))
        .named(stored.at(0).getName())
        .optional(PrimitiveTypeName.BINARY)
        .as(LogicalTypeAnnotation.stringType())
        .id(id(stored.at(1)))
        .named(stored.at(1).getName())
        .optionalGroup()
        .id(id(stored.at(2)))
        .optional(PrimitiveTypeName.INT32)
        .id(id(struct.at(0)))
        .named(struct.at(0).getName())
        .optional(PrimitiveTypeName.BINARY)
        .as(LogicalTypeAnnotation.stringType())
        .id(id(struct.at(1)))
        .named(struct.at(1).getName())
        .named(stored.at(2).getName())
        .optional(PrimitiveTypeName.BINARY)
        .as(LogicalTypeAnnotation.stringType())
        .id(99)
        .named(twin)
        .named("foreign");
    try (ParquetWriter<Group> writer =
        ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(schema).build()) {
      for (long i = 1000; i < 1050; i++) {
        Group row = new SimpleGroup(schema);
        row.append(stored.at(0).getName(), i)
            .append(stored.at(1).getName(), "f" + i)
            .append(twin, "twin");
        row.addGroup(stored.at(2).getName())
            .append(struct.at(0).getName(), (int) i)
            .append(struct.at(1).getName(), "b" + i);
        writer.write(row);
      }
    }
  }

  private static int id(StructField f) {
    return Math.toIntExact(KernelInternals.parquetFieldId(f).orElseThrow());
  }

  /** The physical schema (field ids kept) with logical names at the top level, inside structs, or both. */
  private static StructType renamed(
      StructType logical, StructType physical, boolean top, boolean nested) {
    List<StructField> fields = new ArrayList<>();
    for (int i = 0; i < physical.length(); i++) {
      StructField p = physical.at(i);
      var type = p.getDataType() instanceof StructType s
          ? renamed((StructType) logical.at(i).getDataType(), s, nested, nested)
          : p.getDataType();
      fields.add(new StructField(
          top ? logical.at(i).getName() : p.getName(), type, p.isNullable(), p.getMetadata()));
    }
    return new StructType(fields);
  }

  /** Every live row as Kernel reads it, each value tagged with its type, sorted. */
  private static List<String> kernelRows(DeltaTable table) {
    List<String> rows = new ArrayList<>();
    LogicalRows.forEach(table, table.latest(), row -> {
      Row s = row.getStruct(2);
      rows.add("id=long:" + (row.isNullAt(0) ? "null" : row.getLong(0)) + " v=string:"
          + (row.isNullAt(1) ? "null" : row.getString(1))
          + " s="
          + (row.isNullAt(2)
              ? "null"
              : "struct(int:" + (s.isNullAt(0) ? "null" : s.getInt(0)) + ",string:"
                  + (s.isNullAt(1) ? "null" : s.getString(1)) + ")"));
    });
    rows.sort(null);
    return rows;
  }
}
