package dev.resurfacer.iceberg.compact;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.actions.RewriteFileGroup;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ContentFileUtil;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * Rewrites a group inside an in-process DuckDB: data files are read by Iceberg field id, deletes
 * are anti-joins, and the output is Parquet with every field id. DuckDB's memory_limit bounds the
 * work and its temp_directory takes the spill, so a partition larger than the heap still compacts.
 * Java hands DuckDB local paths and gets back files; Iceberg builds the DataFiles from the footers.
 */
final class DuckDbRewriter implements GroupRewriter {
  private static final Set<String> DUCKDB_CODECS =
      Set.of("zstd", "snappy", "gzip", "lz4", "uncompressed");
  /** Default values DuckDB's schema map takes as written: floats and temporal values do not survive the literal. */
  private static final Set<Type.TypeID> DEFAULT_TYPES = Set.of(
      Type.TypeID.BOOLEAN,
      Type.TypeID.INTEGER,
      Type.TypeID.LONG,
      Type.TypeID.STRING,
      Type.TypeID.DECIMAL);

  @Override
  public String name() {
    return "duckdb";
  }

  /** Why DuckDB cannot rewrite this group faithfully, or empty when it can. */
  static Optional<String> unsupported(
      Table table, RewriteFileGroup group, ResolvedOrdering ordering) {
    Optional<String> order = ResolvedOrdering.duckDbUnsupported(ordering);
    if (order.isPresent()) {
      return order;
    }
    Schema schema = LiveRows.rewriteSchema(table);
    Set<String> defaultTypes = new TreeSet<>();
    for (Types.NestedField f : schema.columns()) {
      if (DuckTypes.of(f.type()).isEmpty()) {
        return Optional.of("column " + f.name() + " has type " + f.type()
            + ", which DuckDB does not write faithfully");
      }
      if (f.initialDefault() != null) {
        if (!DEFAULT_TYPES.contains(f.type().typeId())) {
          return Optional.of("column " + f.name() + " has a " + f.type()
              + " default value, which DuckDB cannot express");
        }
        defaultTypes.add(DuckTypes.of(f.type()).orElseThrow());
      }
    }
    if (defaultTypes.size() > 1) {
      // read_parquet's schema map holds every default in one MAP value: all must share one type
      return Optional.of("columns have default values of " + defaultTypes.size() + " types ("
          + String.join(", ", defaultTypes) + "), which one DuckDB schema map cannot hold");
    }
    Optional<String> names = DuckDbFidelity.tableNames(schema.columns());
    if (names.isPresent()) {
      return names;
    }
    if (nestedFieldRenamed(table)) {
      return Optional.of("a nested field was renamed, and DuckDB matches nested fields by name");
    }
    // core's planner groups every file of an older spec together (and with current-spec files whose
    // partition is all nulls): DuckDB writes one partition per group, so any such file needs the
    // generic runner, which computes each row's partition
    if (group.outputSpecId() != table.spec().specId()) {
      // the planner groups by the current spec's partitions only; files kept in another spec need
      // their rows placed one by one
      return Optional.of(
          "output spec " + group.outputSpecId() + " is not the current spec (repartitioning)");
    }
    for (FileScanTask task : group.fileScanTasks()) {
      if (task.file().specId() != group.outputSpecId()) {
        return Optional.of("files move from spec " + task.file().specId() + " to spec "
            + group.outputSpecId() + " (repartitioning)");
      }
    }
    for (FileScanTask task : group.fileScanTasks()) {
      if (task.file().format() != FileFormat.PARQUET) {
        return Optional.of("data file format " + task.file().format());
      }
      for (DeleteFile d : task.deletes()) {
        if (d.content() == FileContent.EQUALITY_DELETES) {
          if (d.format() != FileFormat.PARQUET) {
            return Optional.of("equality delete file format " + d.format());
          }
          for (int id : d.equalityFieldIds()) {
            if (table.schema().findField(id) == null
                || !table.schema().findField(id).type().isPrimitiveType()
                || table.schema().columns().stream().noneMatch(c -> c.fieldId() == id)) {
              return Optional.of("equality delete on a nested or dropped field");
            }
            Type.TypeID type = table.schema().findField(id).type().typeId();
            if (type == Type.TypeID.FLOAT || type == Type.TypeID.DOUBLE) {
              // Iceberg compares floats by value bits (-0.0 is not +0.0, NaN equals NaN); SQL does
              // not
              return Optional.of("equality delete on floating-point column "
                  + table.schema().findField(id).name());
            }
          }
        } else if (!ContentFileUtil.isDV(d) && d.format() != FileFormat.PARQUET) {
          return Optional.of("position delete file format " + d.format());
        }
      }
    }
    Optional<String> floats =
        DuckDbFidelity.countedNaNs(schema, distinctFiles(group.fileScanTasks()));
    if (floats.isPresent()) {
      return floats;
    }
    for (FileScanTask task : distinctFiles(group.fileScanTasks())) {
      Optional<String> why = DuckDbFidelity.check(schema, table.io().newInputFile(task.file()));
      if (why.isPresent()) {
        return why;
      }
    }
    return Optional.empty();
  }

  private static boolean nestedFieldRenamed(Table table) {
    Map<Integer, String> current = new LinkedHashMap<>();
    Set<Integer> topLevel = table.schema().columns().stream()
        .map(Types.NestedField::fieldId)
        .collect(Collectors.toSet());
    org.apache.iceberg.types.TypeUtil.indexById(table.schema().asStruct())
        .forEach((id, f) -> current.put(id, f.name()));
    for (Schema old : table.schemas().values()) {
      for (Map.Entry<Integer, Types.NestedField> e :
          org.apache.iceberg.types.TypeUtil.indexById(old.asStruct()).entrySet()) {
        String now = current.get(e.getKey());
        if (now != null
            && !topLevel.contains(e.getKey())
            && !now.equals(e.getValue().name())) {
          return true;
        }
      }
    }
    return false;
  }

  @Override
  public List<DataFile> rewrite(Table table, RewriteFileGroup group, Settings settings)
      throws Exception {
    Path work = Files.createTempDirectory(settings.scratchDir(), "group-");
    boolean small = group.inputFilesSizeInBytes() <= settings.smallGroupBytes();
    try (Connection conn = small
            ? SmallGroups.connect(settings.memoryBytes())
            : settings.database() != null
                ? settings.database().connect()
                : DriverManager.getConnection("jdbc:duckdb:");
        Statement st = conn.createStatement()) {
      if (!small && settings.database() == null) {
        DuckDbDatabase.configure(
            st,
            settings.memoryBytes(),
            settings.threads(),
            !(settings.ordering() instanceof ResolvedOrdering.None),
            work.resolve("spill"));
      } else if (!small) {
        // DuckDB may keep the time zone per connection: each group's says UTC itself
        st.execute("SET TimeZone='UTC'");
      }
      ResolvedOrdering ordering = settings.ordering();
      Schema schema = LiveRows.rewriteSchema(table);
      boolean lineage = LiveRows.formatVersion(table) >= 3;

      // one row per input data file: its index, local path, table location and lineage inputs
      List<FileScanTask> tasks = distinctFiles(group.fileScanTasks());
      st.execute(
          "CREATE TEMP TABLE files(idx INTEGER, local VARCHAR, location VARCHAR, first_row_id BIGINT, data_seq BIGINT)");
      List<String> locals = new ArrayList<>();
      try (DuckDBAppender app =
          ((DuckDBConnection) conn).createAppender(DuckDBConnection.DEFAULT_SCHEMA, "files")) {
        for (int i = 0; i < tasks.size(); i++) {
          DataFile f = tasks.get(i).file();
          String local = PlacedFiles.stage(table, f.location(), work).toString();
          locals.add(local);
          app.beginRow();
          app.append(i);
          app.append(local);
          app.append(f.location());
          appendNullable(app, f.firstRowId());
          appendNullable(app, f.dataSequenceNumber());
          app.endRow();
        }
      }

      Optional<String> floatCheck = DuckDbFidelity.floatCheck(
          schema,
          "read_parquet(" + list(locals) + ", schema=" + schemaMap(schema.columns()) + ")",
          tasks);
      if (floatCheck.isPresent()) {
        try (java.sql.ResultSet found = st.executeQuery(floatCheck.get())) {
          if (found.next() && found.getString(1) != null) {
            throw new IllegalStateException(
                "DuckDB cannot write this group exactly: " + found.getString(1));
          }
        }
      }

      boolean hasPositions = loadPositionDeletes(table, conn, st, tasks, work);
      List<String> eqJoins = loadEqualityDeletes(table, st, tasks, work, schema);

      StringBuilder select = new StringBuilder();
      for (Types.NestedField f : table.schema().columns()) {
        if (select.length() > 0) {
          select.append(", ");
        }
        String col = "src." + col(f.fieldId());
        select
            .append(
                f.type().isPrimitiveType()
                    ? "CAST(" + col + " AS " + DuckTypes.of(f.type()).orElseThrow() + ")"
                    : col)
            .append(" AS ")
            .append(DuckTypes.ident(f.name()));
      }
      if (lineage) {
        // Iceberg's reader reports no lineage for a file without first_row_id (written before the
        // upgrade to v3, not yet given ids by a commit): write null, as it reads, so the commit
        // assigns ids
        select
            .append(", CAST(CASE WHEN src.__first_row_id IS NULL THEN NULL ELSE COALESCE(src.")
            .append(col(MetadataColumns.ROW_ID.fieldId()))
            .append(", src.__first_row_id + src.file_row_number) END AS BIGINT) AS \"_row_id\"")
            .append(", CAST(CASE WHEN src.__first_row_id IS NULL THEN NULL ELSE COALESCE(src.")
            .append(col(MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId()))
            .append(", src.__data_seq) END AS BIGINT) AS \"_last_updated_sequence_number\"");
      }

      // only what the output needs travels through the sort: the file name (a long string per row)
      // would multiply what an ordered rewrite must hold or spill
      StringBuilder source = new StringBuilder("SELECT ");
      for (Types.NestedField f : schema.columns()) {
        source.append("t.").append(col(f.fieldId())).append(", ");
      }
      source.append(
          "t.file_row_number, f.first_row_id AS __first_row_id, f.data_seq AS __data_seq");
      DuckOrdering.keyColumns(ordering).forEach(k -> source.append(", ").append(k));
      source
          .append(" FROM read_parquet(")
          .append(list(locals))
          .append(", schema=")
          .append(schemaMap(schema.columns()))
          .append(", filename=true, file_row_number=true) t JOIN files f ON f.local = t.filename");
      if (hasPositions) {
        source.append(" ANTI JOIN positions p ON p.idx = f.idx AND p.pos = t.file_row_number");
      }
      eqJoins.forEach(source::append);
      StringBuilder sql = new StringBuilder("WITH src AS (")
          .append(source)
          .append(") SELECT ")
          .append(select)
          .append(" FROM src");
      List<String> orderBy = DuckOrdering.orderBy(ordering);
      if (!orderBy.isEmpty()) {
        sql.append(" ORDER BY ").append(String.join(", ", orderBy));
      }

      String fieldIds = schema.columns().stream()
          .map(f -> DuckTypes.key(f.name()) + ": " + DuckTypes.fieldIds(f))
          .collect(Collectors.joining(", ", "{", "}"));
      Path out = work.resolve("out");
      String copy = "COPY (" + sql + ") TO " + DuckTypes.string(out.toString())
          + " (FORMAT parquet, COMPRESSION " + codec(table) + ", FIELD_IDS " + fieldIds
          + ", FILE_SIZE_BYTES " + settings.targetFileSizeBytes() + ", ROW_GROUP_SIZE "
          + rowGroupRows(group, settings) + ")";
      st.execute(copy);

      PartitionSpec spec = table.specs().get(group.outputSpecId());
      List<DataFile> result = new ArrayList<>();
      List<Path> produced;
      try (Stream<Path> files = Files.walk(out)) {
        produced = files.filter(Files::isRegularFile).sorted().toList();
      }
      for (Path p : produced) {
        // every input shares this partition (same spec, grouped by partition): see unsupported()
        DataFile placed = PlacedFiles.place(
            table, spec, group.fileScanTasks().get(0).file().partition(), ordering.stamp(table), p);
        if (placed.recordCount() == 0) {
          // DuckDB can finish a size-rolled COPY with an empty last file: it holds nothing to keep
          table.io().deleteFile(placed.location());
        } else {
          result.add(placed);
        }
      }
      return result;
    } finally {
      deleteRecursively(work);
    }
  }

  /**
   * DuckDB rolls to a new file only between row groups, so a row group must be well below the
   * target size (a quarter, estimated from the input's compressed bytes per row).
   */
  static long rowGroupRows(RewriteFileGroup group, Settings settings) {
    long rows =
        group.fileScanTasks().stream().mapToLong(t -> t.file().recordCount()).sum();
    long bytesPerRow = Math.max(1, group.inputFilesSizeInBytes() / Math.max(1, rows));
    return Math.max(1024, Math.min(122_880, settings.targetFileSizeBytes() / bytesPerRow / 4));
  }

  /** Position deletes (Parquet files and deletion vectors) as (file index, position) rows. */
  private static boolean loadPositionDeletes(
      Table table, Connection conn, Statement st, List<FileScanTask> tasks, Path work)
      throws Exception {
    Map<String, List<Integer>> parquetDeletes = new LinkedHashMap<>();
    List<Integer> withDvs = new ArrayList<>();
    for (int i = 0; i < tasks.size(); i++) {
      for (DeleteFile d : tasks.get(i).deletes()) {
        if (d.content() != FileContent.POSITION_DELETES) {
          continue;
        }
        if (ContentFileUtil.isDV(d)) {
          if (!withDvs.contains(i)) {
            withDvs.add(i);
          }
        } else {
          parquetDeletes.computeIfAbsent(d.location(), k -> new ArrayList<>()).add(i);
        }
      }
    }
    if (parquetDeletes.isEmpty() && withDvs.isEmpty()) {
      return false;
    }
    st.execute("CREATE TEMP TABLE positions(idx INTEGER, pos BIGINT)");
    if (!withDvs.isEmpty()) {
      // deletion vectors are Puffin blobs: Iceberg's loader decodes them, DuckDB gets positions
      BaseDeleteLoader loader = new BaseDeleteLoader(d -> table.io().newInputFile(d));
      try (DuckDBAppender app =
          ((DuckDBConnection) conn).createAppender(DuckDBConnection.DEFAULT_SCHEMA, "positions")) {
        for (int i : withDvs) {
          FileScanTask task = tasks.get(i);
          List<DeleteFile> dvs =
              task.deletes().stream().filter(ContentFileUtil::isDV).toList();
          PositionDeleteIndex index =
              loader.loadPositionDeletes(dvs, task.file().location());
          final int idx = i;
          index.forEach(pos -> {
            try {
              app.beginRow();
              app.append(idx);
              app.append(pos);
              app.endRow();
            } catch (SQLException e) {
              throw new IllegalStateException(e);
            }
          });
        }
      }
    }
    if (!parquetDeletes.isEmpty()) {
      // a position delete file applies only to the data files whose scan task lists it (Iceberg's
      // delete index already applied the sequence-number and partition rules)
      List<String> deleteLocals = stageApplies(table, st, "pos_applies", parquetDeletes, work);
      st.execute(
          "INSERT INTO positions SELECT f.idx, d.pos FROM read_parquet(" + list(deleteLocals)
              + ", filename=true) d JOIN files f ON f.location = d.file_path JOIN pos_applies a ON a.local = d.filename AND a.idx = f.idx");
    }
    return true;
  }

  /**
   * Stages each delete file of {@code appliesTo} (its location to the indexes of the tasks it applies to) and
   * fills the temp table {@code applies}(local, idx) with one row per file and task.
   *
   * @return the staged files' local paths, in {@code appliesTo}'s order
   */
  private static List<String> stageApplies(
      Table table, Statement st, String applies, Map<String, List<Integer>> appliesTo, Path work)
      throws Exception {
    st.execute("CREATE TEMP TABLE " + applies + "(local VARCHAR, idx INTEGER)");
    StringBuilder values = new StringBuilder();
    List<String> locals = new ArrayList<>();
    for (Map.Entry<String, List<Integer>> e : appliesTo.entrySet()) {
      String local = PlacedFiles.stage(table, e.getKey(), work).toString();
      locals.add(local);
      for (int idx : e.getValue()) {
        values
            .append(values.length() == 0 ? "" : ", ")
            .append('(')
            .append(DuckTypes.string(local))
            .append(", ")
            .append(idx)
            .append(')');
      }
    }
    st.execute("INSERT INTO " + applies + " VALUES " + values);
    return locals;
  }

  /** Equality deletes grouped by their equality field set; returns one ANTI JOIN clause per set. */
  private static List<String> loadEqualityDeletes(
      Table table, Statement st, List<FileScanTask> tasks, Path work, Schema schema)
      throws Exception {
    Map<List<Integer>, Map<String, List<Integer>>> byFields = new LinkedHashMap<>();
    for (int i = 0; i < tasks.size(); i++) {
      for (DeleteFile d : tasks.get(i).deletes()) {
        if (d.content() == FileContent.EQUALITY_DELETES) {
          List<Integer> ids = new ArrayList<>(new TreeSet<>(d.equalityFieldIds()));
          byFields
              .computeIfAbsent(ids, k -> new LinkedHashMap<>())
              .computeIfAbsent(d.location(), k -> new ArrayList<>())
              .add(i);
        }
      }
    }
    List<String> joins = new ArrayList<>();
    int k = 0;
    for (Map.Entry<List<Integer>, Map<String, List<Integer>>> e : byFields.entrySet()) {
      List<Types.NestedField> fields =
          e.getKey().stream().map(id -> schema.findField(id)).toList();
      String applies = "eq_applies_" + k;
      String rows = "eq_rows_" + k;
      List<String> locals = stageApplies(table, st, applies, e.getValue(), work);
      String cols =
          fields.stream().map(f -> "d." + col(f.fieldId())).collect(Collectors.joining(", "));
      st.execute("CREATE TEMP TABLE " + rows + " AS SELECT DISTINCT a.idx, " + cols
          + " FROM read_parquet(" + list(locals) + ", schema=" + schemaMap(fields)
          + ", filename=true) d JOIN " + applies + " a ON a.local = d.filename");
      // null-safe: an equality delete with a null value deletes rows whose value is null
      String alias = "q" + k;
      String on = fields.stream()
          .map(f -> alias + "." + col(f.fieldId()) + " IS NOT DISTINCT FROM t." + col(f.fieldId()))
          .collect(Collectors.joining(" AND "));
      joins.add(" ANTI JOIN " + rows + " q" + k + " ON q" + k + ".idx = f.idx AND " + on);
      k++;
    }
    return joins;
  }

  /** {@code MAP{id: {name, type, default_value}}}: DuckDB reads each column by its Parquet field id. */
  static String schemaMap(List<Types.NestedField> fields) {
    return fields.stream()
        .map(f -> f.fieldId() + ": {name: " + DuckTypes.string(col(f.fieldId())) + ", type: "
            + DuckTypes.string(DuckTypes.of(f.type()).orElseThrow()) + ", default_value: "
            + defaultLiteral(f) + "}")
        .collect(Collectors.joining(", ", "MAP{", "}"));
  }

  private static String defaultLiteral(Types.NestedField f) {
    Object d = f.initialDefault();
    if (d == null) {
      return "NULL";
    }
    String type = DuckTypes.of(f.type()).orElseThrow();
    if (d instanceof CharSequence s) {
      return "CAST(" + DuckTypes.string(s.toString()) + " AS " + type + ")";
    }
    if (f.type().typeId() == Type.TypeID.DECIMAL && d instanceof java.math.BigDecimal bd) {
      return "CAST('" + bd.toPlainString() + "' AS " + type + ")";
    }
    return "CAST(" + d + " AS " + type + ")";
  }

  private static String codec(Table table) {
    String c = table
        .properties()
        .getOrDefault(TableProperties.PARQUET_COMPRESSION, "zstd")
        .toLowerCase(Locale.ROOT);
    return DUCKDB_CODECS.contains(c) ? c : "zstd";
  }

  static String col(int fieldId) {
    return "c_" + Integer.toUnsignedString(fieldId);
  }

  private static String list(List<String> paths) {
    return paths.stream().map(DuckTypes::string).collect(Collectors.joining(", ", "[", "]"));
  }

  private static List<FileScanTask> distinctFiles(List<FileScanTask> tasks) {
    Map<String, FileScanTask> byLocation = new LinkedHashMap<>();
    tasks.forEach(t -> byLocation.putIfAbsent(t.file().location(), t));
    return new ArrayList<>(byLocation.values());
  }

  private static void appendNullable(DuckDBAppender app, Long value) throws SQLException {
    if (value == null) {
      app.appendNull();
    } else {
      app.append(value.longValue());
    }
  }

  static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (java.io.IOException ignored) {
      // scratch space only; a leftover temp file is not a correctness problem
    }
  }
}
