package dev.resurfacer.delta.compact;

import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.delta.table.LocalStorage;
import dev.resurfacer.delta.table.TableStorage;
import dev.resurfacer.storage.StoredFile;
import dev.resurfacer.zorder.ZKeysSql;
import io.delta.kernel.Transaction;
import io.delta.kernel.data.Row;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.ByteType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.ShortType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import io.delta.kernel.utils.DataFileStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * Rewrites a bin inside an in-process DuckDB, as our Iceberg compaction does: the bin's Parquet
 * files are read by physical column name, the rows each file's deletion vector deletes (decoded by Kernel)
 * are an anti-join on the file row number, a z-order is an ORDER BY on the z-value of
 * {@link ZKeysSql} with ties in input order (the same order as the in-heap {@link ZOrder}), and
 * the output is Parquet with the table's physical column names and types as Kernel's writer
 * writes them (timestamps as UTC-adjusted microseconds, snappy). DuckDB's memory_limit bounds the
 * work and its temp_directory takes the spill, so a bin larger than the heap compacts. The new
 * files get the stats Kernel's writer computes for its own files, from their footers. DuckDB reads
 * and writes local paths only (it never loads httpfs): the planner gives a table on an object store
 * to {@link KernelBinRunner}, which goes through the table's storage.
 */
record DuckDbBinRunner() implements BinRunner {
  /** Columns read_parquet adds; a data column of the same name would be shadowed. */
  private static final Set<String> RESERVED = Set.of("filename", "file_row_number");

  @Override
  public String name() {
    return "duckdb";
  }

  /**
   * Why DuckDB cannot reach the table's files, or empty when they are local: it would need its
   * httpfs extension for an object store, which it never loads (no network from DuckDB).
   */
  static Optional<String> unreachable(TableStorage storage) {
    StoredFile root = storage.root();
    return root.isLocal()
        ? Optional.empty()
        : Optional.of("DuckDB reads local files only (no httpfs) and the table is on "
            + root.scheme() + "://" + root.authority());
  }

  /**
   * Why DuckDB cannot rewrite these bins of this table exactly, or empty when it can. When the table
   * is read by field id ({@code id} column mapping) the bins' footers are read: each file must store
   * every field id under the table's physical name ({@link FieldIdNames}).
   */
  static Optional<String> unsupported(
      DataColumns columns, boolean readByFieldId, List<CompactionPlan.Bin> bins) {
    for (CompactionPlan.Bin bin : bins) {
      for (LiveFile f : bin.files()) {
        if (f.file().toString().matches(".*[*?\\[\\]{}].*")) {
          // read_parquet takes its paths as glob patterns
          return Optional.of("input " + f.file() + " has a glob character in its path");
        }
      }
    }
    for (StructField f : columns.written().fields()) {
      if (RESERVED.contains(f.getName().toLowerCase(Locale.ROOT))) {
        return Optional.of(
            "column " + f.getName() + " has the name of a column DuckDB's Parquet reader adds");
      }
      if (type(f.getDataType()).isEmpty()) {
        return Optional.of("column " + f.getName() + " has type " + f.getDataType()
            + ", which the DuckDB runner does not write " + "as Kernel does");
      }
    }
    return readByFieldId ? FieldIdNames.mismatch(columns.physical(), bins) : Optional.empty();
  }

  /** The DuckDB type holding a Delta type exactly and written to Parquet as Kernel writes it, or empty. */
  static Optional<String> type(DataType t) {
    if (t instanceof BooleanType) {
      return Optional.of("BOOLEAN");
    } else if (t instanceof ByteType) {
      return Optional.of("TINYINT");
    } else if (t instanceof ShortType) {
      return Optional.of("SMALLINT");
    } else if (t instanceof IntegerType) {
      return Optional.of("INTEGER");
    } else if (t instanceof LongType) {
      return Optional.of("BIGINT");
    } else if (t instanceof FloatType) {
      return Optional.of("FLOAT");
    } else if (t instanceof DoubleType) {
      return Optional.of("DOUBLE");
    } else if (t instanceof DateType) {
      return Optional.of("DATE");
    } else if (t instanceof TimestampType) {
      // Parquet INT64 TIMESTAMP(MICROS, isAdjustedToUTC=true), as Kernel writes Delta's timestamp
      return Optional.of("TIMESTAMPTZ");
    } else if (t instanceof TimestampNTZType) {
      return Optional.of("TIMESTAMP");
    } else if (t instanceof DecimalType d) {
      return Optional.of("DECIMAL(" + d.getPrecision() + "," + d.getScale() + ")");
    } else if (t instanceof StringType) {
      return Optional.of("VARCHAR");
    } else if (t instanceof BinaryType) {
      return Optional.of("BLOB");
    } else if (t instanceof StructType s) {
      List<String> fields = new ArrayList<>();
      for (StructField f : s.fields()) {
        Optional<String> inner = type(f.getDataType());
        if (inner.isEmpty()) {
          return Optional.empty();
        }
        fields.add(ident(f.getName()) + " " + inner.get());
      }
      return fields.isEmpty()
          ? Optional.empty()
          : Optional.of("STRUCT(" + String.join(", ", fields) + ")");
    } else if (t instanceof ArrayType a) {
      // written as Kernel and delta-spark write lists: <name> (LIST) { repeated group list {
      // element } }
      return type(a.getElementType()).map(e -> e + "[]");
    } else if (t instanceof MapType m) {
      // and maps: <name> (MAP) { repeated group key_value { required key; value } }
      Optional<String> key = type(m.getKeyType());
      Optional<String> value = type(m.getValueType());
      return key.isEmpty() || value.isEmpty()
          ? Optional.empty()
          : Optional.of("MAP(" + key.get() + ", " + value.get() + ")");
    }
    // variants and types of later protocols
    return Optional.empty();
  }

  /**
   * What DuckDB says went wrong: its JDBC driver puts a generic first line ("Attempting to execute an
   * unsuccessful or closed pending query result") before the error itself ("Error: IO Error: …").
   */
  static String cause(SQLException e) {
    String m = e.getMessage() == null ? "" : e.getMessage();
    return m.lines()
        .map(String::strip)
        .filter(l -> !l.isEmpty() && !l.contains("unsuccessful or closed pending query result"))
        .map(l -> l.startsWith("Error: ") ? l.substring("Error: ".length()) : l)
        .findFirst()
        .orElse(m.strip());
  }

  /** A partition value as a SQL constant of its column's DuckDB type (the session's time zone is UTC). */
  static String literal(DataType t, io.delta.kernel.expressions.Literal value) {
    String type = type(t).orElseThrow();
    Object v = value.getValue();
    if (v == null) {
      return "CAST(NULL AS " + type + ")";
    } else if (t instanceof BooleanType) {
      return (Boolean) v ? "TRUE" : "FALSE";
    } else if (t instanceof ByteType
        || t instanceof ShortType
        || t instanceof IntegerType
        || t instanceof LongType) {
      return "CAST(" + v + " AS " + type + ")";
    } else if (t instanceof DateType) {
      return "(DATE '1970-01-01' + " + v + ")";
    } else if (t instanceof TimestampType) {
      return "make_timestamp(" + v + "::BIGINT)::TIMESTAMPTZ";
    } else if (t instanceof TimestampNTZType) {
      return "make_timestamp(" + v + "::BIGINT)";
    } else if (t instanceof DecimalType) {
      return "CAST('" + ((java.math.BigDecimal) v).toPlainString() + "' AS " + type + ")";
    } else if (t instanceof BinaryType) {
      return "from_hex('" + java.util.HexFormat.of().formatHex((byte[]) v) + "')";
    }
    // strings, floats and doubles (NaN and the infinities by name)
    return "CAST(" + string(v.toString()) + " AS " + type + ")";
  }

  /** {@link dev.resurfacer.zorder.ZKeys}' key of a column as SQL, null for null. */
  static String zKey(DataType t, String x) {
    if (t instanceof BooleanType) {
      return ZKeysSql.ofBoolean(x);
    } else if (t instanceof ByteType
        || t instanceof ShortType
        || t instanceof IntegerType
        || t instanceof LongType) {
      return ZKeysSql.ofLong(x);
    } else if (t instanceof DateType) {
      return ZKeysSql.ofDate(x);
    } else if (t instanceof TimestampType || t instanceof TimestampNTZType) {
      return ZKeysSql.ofTimestamp(x);
    } else if (t instanceof DecimalType d) {
      return ZKeysSql.ofDecimal(x, d.getScale());
    } else if (t instanceof StringType) {
      return ZKeysSql.ofString(x);
    } else if (t instanceof FloatType || t instanceof DoubleType) {
      // a float widens to the double the in-heap z-order keys it by, exactly
      return ZKeysSql.ofDouble("CAST(" + x + " AS DOUBLE)");
    }
    throw new IllegalArgumentException("no DuckDB z-value key for " + t);
  }

  @Override
  public List<DataFileStatus> write(BinWork work, CompactionPlan.Bin bin) throws IOException {
    Files.createDirectories(work.options().scratchDir());
    Path scratch = Files.createTempDirectory(work.options().scratchDir(), "delta-bin-");
    List<DataFileStatus> placed = new ArrayList<>();
    try (Connection conn = DriverManager.getConnection("jdbc:duckdb:");
        Statement st = conn.createStatement()) {
      configure(st, work, scratch);
      List<String> locals =
          bin.files().stream().map(f -> LocalStorage.path(f.file()).toString()).toList();
      st.execute("CREATE TEMP TABLE files(idx INTEGER, local VARCHAR)");
      try (DuckDBAppender app =
          ((DuckDBConnection) conn).createAppender(DuckDBConnection.DEFAULT_SCHEMA, "files")) {
        for (int i = 0; i < locals.size(); i++) {
          app.beginRow();
          app.append(i);
          app.append(locals.get(i));
          app.endRow();
        }
      }
      boolean deletes = loadDeletedPositions(work, bin, conn, st);
      String files =
          locals.stream().map(DuckDbBinRunner::string).collect(Collectors.joining(", ", "[", "]"));
      // no columns from key=value folders: Delta's partition values come from the log, and a folder
      // above the table named like a data column would replace that column's values
      Set<String> present = new HashSet<>();
      try (ResultSet r = st.executeQuery("DESCRIBE SELECT * FROM read_parquet(" + files
          + ", union_by_name=true, hive_partitioning=false)")) {
        while (r.next()) {
          present.add(r.getString(1).toLowerCase(Locale.ROOT));
        }
      }
      // files are read and written by physical names (the logical ones unless the table maps its
      // columns): a column dropped and added again under its old name has a new physical name, and
      // the old files' values under the dropped name are not read
      StringBuilder source = new StringBuilder("SELECT ");
      StringBuilder select = new StringBuilder();
      for (StructField f : work.columns().physical().fields()) {
        String type = type(f.getDataType()).orElseThrow();
        // a column added after some files were written is null in them, as Delta reads it
        source
            .append(
                present.contains(f.getName().toLowerCase(Locale.ROOT))
                    ? "t." + ident(f.getName())
                    : "NULL")
            .append(" AS ")
            .append(ident(f.getName()))
            .append(", ");
        select
            .append(select.length() == 0 ? "" : ", ")
            .append("CAST(src.")
            .append(ident(f.getName()))
            .append(" AS ")
            .append(type)
            .append(") AS ")
            .append(ident(f.getName()));
      }
      // materialized partition columns hold the bin's partition value, whatever the inputs hold
      for (int i = 0; i < work.columns().partitionNames().size(); i++) {
        StructField f = work.columns().partitionPhysical().at(i);
        select
            .append(", ")
            .append(literal(
                f.getDataType(),
                work.partition().get(work.columns().partitionNames().get(i))))
            .append(" AS ")
            .append(ident(f.getName()));
      }
      source.append("f.idx AS __file, t.file_row_number AS __row");
      for (int i = 0; i < work.zOrderColumns().size(); i++) {
        StructField f = work.columns().physicalOf(work.zOrderColumns().get(i));
        DataType t = f.getDataType();
        String value = present.contains(f.getName().toLowerCase(Locale.ROOT))
            ? "CAST(t." + ident(f.getName()) + " AS " + type(t).orElseThrow() + ")"
            : "NULL";
        source
            .append(", COALESCE(")
            .append(zKey(t, value))
            .append(", 0::UBIGINT) AS __k")
            .append(i);
      }
      source
          .append(" FROM read_parquet(")
          .append(files)
          .append(
              ", union_by_name=true, hive_partitioning=false, filename=true, file_row_number=true) t")
          .append(" JOIN files f ON f.local = t.filename");
      if (deletes) {
        source.append(" ANTI JOIN deleted d ON d.idx = f.idx AND d.pos = t.file_row_number");
      }
      StringBuilder sql = new StringBuilder("WITH src AS (")
          .append(source)
          .append(") SELECT ")
          .append(select)
          .append(" FROM src");
      if (!work.zOrderColumns().isEmpty()) {
        List<String> order = new ArrayList<>(
            ZKeysSql.interleavedChunks("src.__k", work.zOrderColumns().size()));
        // ties in input order, as the in-heap z-order's stable sort keeps them
        order.add("src.__file");
        order.add("src.__row");
        sql.append(" ORDER BY ").append(String.join(", ", order));
      }
      Path out = scratch.resolve("out");
      st.execute("COPY (" + sql + ") TO " + string(out.toString())
          + " (FORMAT parquet, COMPRESSION snappy, FILE_SIZE_BYTES "
          + work.targetFileSize() + ", ROW_GROUP_SIZE " + rowGroupRows(bin, work.targetFileSize())
          + ", FILENAME_PATTERN 'part-{i}'"
          + (work.columnMapped() ? ", FIELD_IDS " + fieldIds(work.columns().written()) : "") + ")");
      placed.addAll(place(work, out));
      return placed;
    } catch (SQLException e) {
      DeltaCompactor.deleteQuietly(work.table().storage(), placed);
      throw new IllegalStateException("DuckDB runner: " + cause(e), e);
    } catch (IOException | RuntimeException e) {
      DeltaCompactor.deleteQuietly(work.table().storage(), placed);
      throw e;
    } finally {
      deleteRecursively(scratch);
    }
  }

  private static void configure(Statement st, BinWork work, Path scratch) throws SQLException {
    long mb = Math.max(64, work.options().memoryBytes() >> 20);
    st.execute("SET memory_limit='" + mb + "MB'");
    // blocks stay mapped up to the limit instead of faulting in again after each task (as in
    // Iceberg's DuckDbRewriter)
    st.execute("SET block_allocator_memory='" + mb + "MB'");
    int cores = Math.max(1, Runtime.getRuntime().availableProcessors());
    // an ordered rewrite keeps a sort run per thread in memory: below ~256 MB a thread DuckDB fails
    // to pin blocks instead of spilling (measured for our Iceberg runner), so it gets one thread
    boolean ordered = !work.zOrderColumns().isEmpty();
    st.execute("SET threads=" + (ordered && mb / cores < 256 ? 1 : cores));
    st.execute("SET temp_directory=" + string(scratch.resolve("spill").toString()));
    // ordered output keeps its order across the files DuckDB rolls over to
    st.execute("SET preserve_insertion_order=" + ordered);
    st.execute("SET TimeZone='UTC'");
    // DuckDB never touches the network: it reads local files only
    st.execute("SET autoinstall_known_extensions=false");
    st.execute("SET autoload_known_extensions=false");
  }

  /** The positions each file's deletion vector deletes, as (file index, row position) rows of table {@code deleted}. */
  private static boolean loadDeletedPositions(
      BinWork work, CompactionPlan.Bin bin, Connection conn, Statement st) throws SQLException {
    if (bin.files().stream().allMatch(f -> f.deletionVector().isEmpty())) {
      return false;
    }
    st.execute("CREATE TEMP TABLE deleted(idx INTEGER, pos BIGINT)");
    try (DuckDBAppender app =
        ((DuckDBConnection) conn).createAppender(DuckDBConnection.DEFAULT_SCHEMA, "deleted")) {
      for (int i = 0; i < bin.files().size(); i++) {
        LiveFile f = bin.files().get(i);
        if (f.deletionVector().isEmpty()) {
          continue;
        }
        Row scanFile = work.scanFiles().get(f.logPath());
        Row add = scanFile.getStruct(scanFile.getSchema().indexOf("add"));
        Row dv = add.getStruct(add.getSchema().indexOf("deletionVector"));
        for (long pos :
            KernelInternals.deletedPositions(work.engine(), work.table().uri(), dv)) {
          app.beginRow();
          app.append(i);
          app.append(pos);
          app.endRow();
        }
      }
    }
    return true;
  }

  /**
   * Moves DuckDB's files into the bin's partition directory under Delta's usual names and reads
   * their stats; an empty last file DuckDB may leave when it rolls over is dropped.
   */
  private static List<DataFileStatus> place(BinWork work, Path out) throws IOException {
    var context = Transaction.getWriteContext(work.engine(), work.txnState(), work.partition());
    TableStorage storage = work.table().storage();
    Path target = LocalStorage.fromKernelSpelling(context.getTargetDirectory());
    Files.createDirectories(target);
    StructType physical = work.columns().physical();
    List<DataFileStatus> placed = new ArrayList<>();
    List<Path> produced;
    try (Stream<Path> s = Files.walk(out)) {
      produced = s.filter(Files::isRegularFile).sorted().toList();
    }
    try {
      for (int i = 0; i < produced.size(); i++) {
        Path file = target.resolve(
            String.format(Locale.ROOT, "part-%05d-%s-c000.snappy.parquet", i, UUID.randomUUID()));
        Files.move(produced.get(i), file);
        String path = storage.kernelPath(LocalStorage.of(file));
        DataFileStatus status = KernelInternals.withKernelStats(
            DeltaTables.hadoopConf(),
            path,
            Files.size(file),
            Files.getLastModifiedTime(file).toMillis(),
            physical,
            work.statsColumns());
        placed.add(status);
        if (status.getStatistics().orElseThrow().getNumRecords() == 0) {
          placed.remove(placed.size() - 1);
          Files.delete(file);
        }
      }
    } catch (IOException | RuntimeException e) {
      DeltaCompactor.deleteQuietly(storage, placed);
      throw e;
    }
    return placed;
  }

  /**
   * COPY's FIELD_IDS value giving each column, each field of a struct and, where the table declares
   * nested ids, each list element and map key and value its Parquet field id, e.g. {@code {"col-1":
   * 1, "col-2": {__duckdb_field_id: 2, "col-3": 3}, "col-4": {__duckdb_field_id: 4, element: {"col-5":
   * 5}}}}: as delta-spark writes them (no ids on element, key and value unless declared).
   */
  static String fieldIds(StructType physical) {
    List<String> entries = new ArrayList<>();
    for (StructField f : physical.fields()) {
      long id = KernelInternals.parquetFieldId(f)
          .orElseThrow(() -> new IllegalStateException(
              "column " + f.getName() + " of a column-mapped table has no field id"));
      entries.add(
          ident(f.getName()) + ": " + fieldIds(Optional.of(id), f, f.getName(), f.getDataType()));
    }
    return "{" + String.join(", ", entries) + "}";
  }

  /** The FIELD_IDS entry of one column or nested field: its id alone, or a struct of its id and its children's. */
  private static String fieldIds(Optional<Long> id, StructField nearest, String path, DataType t) {
    List<String> children = new ArrayList<>();
    if (t instanceof StructType s) {
      String inner = fieldIds(s);
      if (s.length() > 0) {
        children.add(inner.substring(1, inner.length() - 1));
      }
    } else if (t instanceof ArrayType a) {
      children.add("element: "
          + fieldIds(
              KernelInternals.parquetNestedFieldId(nearest, path + ".element"),
              nearest,
              path + ".element",
              a.getElementType()));
    } else if (t instanceof MapType m) {
      children.add("key: "
          + fieldIds(
              KernelInternals.parquetNestedFieldId(nearest, path + ".key"),
              nearest,
              path + ".key",
              m.getKeyType()));
      children.add("value: "
          + fieldIds(
              KernelInternals.parquetNestedFieldId(nearest, path + ".value"),
              nearest,
              path + ".value",
              m.getValueType()));
    }
    children.removeIf(c -> c.endsWith(": {}"));
    if (children.isEmpty()) {
      return id.map(String::valueOf).orElse("{}");
    }
    return "{" + id.map(i -> "__duckdb_field_id: " + i + ", ").orElse("")
        + String.join(", ", children) + "}";
  }

  /**
   * DuckDB rolls to a new file only between row groups, so a row group is a quarter of the target
   * at most; and at most about 8 MB, so the read-back that verifies the bin (Kernel's reader holds a
   * whole row group) stays small in the heap.
   */
  static long rowGroupRows(CompactionPlan.Bin bin, long targetFileSize) {
    long rows = bin.files().stream().mapToLong(f -> f.numRecords().orElse(0)).sum();
    long bytes = bin.files().stream().mapToLong(LiveFile::size).sum();
    long bytesPerRow = Math.max(1, bytes / Math.max(1, rows));
    return Math.max(1024, Math.min(122_880, Math.min(targetFileSize / 4, 8L << 20) / bytesPerRow));
  }

  static String ident(String name) {
    return '"' + name.replace("\"", "\"\"") + '"';
  }

  static String string(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // scratch space only; a leftover is not a correctness problem
    }
  }
}
