package dev.resurfacer.spark;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.iceberg.testing.EveryOperation;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #27's "must show": a catalog of odd tables written by Spark 4.1 (Iceberg's own runtime) —
 * format v1, v2 and v3; uuid, fixed, binary, decimal, timestamp_ntz, NaN/-0.0/null floats and
 * doubles, nested struct/array/map; merge-on-read DELETE/UPDATE (position deletes on v2, deletion
 * vectors on v3); tags and branches with commits of their own; identity, bucket, truncate, hours,
 * days, months, years and no partitioning; partition and schema evolution (add, rename, drop,
 * int to long); a statistics file from {@code compute_table_stats}; a name with {@code .} and
 * {@code :} and columns named {@code letter/abc} and {@code with space}. {@code maintain --yes}
 * with every operation enabled runs over it as the runnable jar: exit 0, every table and every
 * operation {@code done} or {@code nothing_to_do} with its reason, never {@code previewed}, and
 * Spark reads the same type-tagged rows at every snapshot still kept, at every tag and every branch.
 * Spark writes no equality deletes (its row-level writes are position deletes or deletion vectors);
 * those are covered by {@code OddTablesMaintainCliTest}.
 */
class SparkOddCatalogTest {
  static final String CATALOG = "lake";
  static final String SPECIAL = "db.`odd.name:v2`";

  @TempDir
  static Path dir;

  static SparkSession spark;
  static JdbcCatalog catalog;

  @BeforeAll
  static void start() throws IOException {
    catalog = SqliteCatalogs.create(CATALOG, dir);
    spark = IcebergSparkSessions.start("resurfacer-odd-catalog", dir, CATALOG);
    sql("CREATE NAMESPACE IF NOT EXISTS " + CATALOG + ".db");
  }

  @AfterAll
  static void stop() {
    if (spark != null) {
      spark.stop();
    }
    if (catalog != null) {
      catalog.close();
    }
  }

  static void sql(String statement) {
    spark.sql(statement).collectAsList();
  }

  static final String MOR =
      "'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read'";

  /** A row of every Spark type Iceberg holds, for ids [from, to); NaN, -0.0 and nulls among the floats and doubles. */
  static String typedRows(long from, long to, String tsBase) {
    return "SELECT id, CASE WHEN id % 4 = 0 THEN 'aa' WHEN id % 4 = 1 THEN 'ab' WHEN id % 4 = 2 THEN 'ba' ELSE 'bb' END AS cat,"
        + " CAST(id AS INT) AS i,"
        + " CAST(id * 1234567.891 AS DECIMAL(38,6)) AS dec,"
        + " CASE WHEN id % 5 = 0 THEN CAST('NaN' AS DOUBLE) WHEN id % 5 = 1 THEN NULL WHEN id % 5 = 2 THEN CAST(-0.0 AS DOUBLE)"
        + "   ELSE id / 3.0 END AS d,"
        + " CASE WHEN id % 3 = 0 THEN CAST('NaN' AS FLOAT) WHEN id % 3 = 1 THEN NULL ELSE CAST(id / 7.0 AS FLOAT) END AS fl,"
        + " TIMESTAMP_NTZ '" + tsBase
        + "' + make_interval(0, 0, 0, CAST(id % 40 AS INT), CAST(id % 24 AS INT)) AS ts,"
        + " CASE WHEN id % 6 = 0 THEN NULL ELSE unhex(hex(id * 7919)) END AS b,"
        + " named_struct('x', CAST(id AS INT), 'tags', array(concat('t', id), NULL), 'inner', named_struct('y', id % 2 = 0)) AS s,"
        + " map(concat('k', id % 3), CAST(id AS DOUBLE), 'nan', CAST('NaN' AS DOUBLE)) AS m"
        + " FROM range(" + from + ", " + to + ")";
  }

  static final String TYPED_COLUMNS =
      "(id BIGINT, cat STRING, i INT, dec DECIMAL(38,6), d DOUBLE, fl FLOAT, ts TIMESTAMP_NTZ,"
          + " b BINARY, s STRUCT<x: INT, tags: ARRAY<STRING>, inner: STRUCT<y: BOOLEAN>>, m MAP<STRING, DOUBLE>)";

  /** Builds the catalog; returns the tables by their quoted names. */
  static List<String> buildCatalog() {
    List<String> names = new ArrayList<>();

    // v1: identity partitions, then partition evolution (bucket added), schema evolution (add,
    // rename,
    // drop, int -> long), a tag and a branch with its own commit; copy-on-write deletes (v1 has no
    // row-level deletes)
    String v1 = CATALOG + ".db.v1_evolved";
    sql("CREATE TABLE " + v1 + " " + TYPED_COLUMNS
        + " USING iceberg PARTITIONED BY (cat) TBLPROPERTIES ('format-version'='1')");
    sql("INSERT INTO " + v1 + " " + typedRows(0, 30, "2020-01-01 00:00:00"));
    sql("INSERT INTO " + v1 + " " + typedRows(30, 60, "2020-03-01 00:00:00"));
    sql("ALTER TABLE " + v1 + " CREATE TAG t1");
    sql("ALTER TABLE " + v1 + " ADD PARTITION FIELD bucket(3, id)");
    sql("ALTER TABLE " + v1 + " ADD COLUMN added STRING");
    sql("ALTER TABLE " + v1 + " RENAME COLUMN fl TO `renamed fl`");
    sql("ALTER TABLE " + v1 + " ALTER COLUMN i TYPE BIGINT");
    sql("ALTER TABLE " + v1 + " DROP COLUMN dec");
    sql("INSERT INTO " + v1 + " SELECT id, cat, i, d, fl, ts, b, s, m, concat('added-', id) FROM ("
        + typedRows(60, 90, "2020-05-01 00:00:00") + ")");
    sql("DELETE FROM " + v1 + " WHERE id % 11 = 0");
    sql("ALTER TABLE " + v1 + " CREATE BRANCH audit");
    sql("INSERT INTO " + v1
        + ".branch_audit SELECT id, cat, i, d, fl, ts, b, s, m, 'on branch' FROM ("
        + typedRows(1000, 1005, "2020-06-01 00:00:00") + ")");
    names.add("db.v1_evolved");

    // v2 under a name with '.' and ':' and columns named letter/abc and `with space`: bucket and
    // truncate
    // partitions, merge-on-read DELETE and UPDATE (position deletes), a tag, a branch with a delete
    // of its own,
    // and Spark's own statistics file
    String special = CATALOG + "." + SPECIAL;
    sql("CREATE TABLE " + special
        + " (id BIGINT, `letter/abc` STRING, `with space` DECIMAL(9,2), b BINARY, ts TIMESTAMP_NTZ)"
        + " USING iceberg PARTITIONED BY (bucket(3, id), truncate(1, `letter/abc`))"
        + " TBLPROPERTIES ('format-version'='2', " + MOR + ")");
    for (int f = 0; f < 3; f++) {
      sql("INSERT INTO " + special
          + " SELECT id, concat(char(97 + id % 3), '/', id), CAST(id * 1.25 AS DECIMAL(9,2)),"
          + " unhex(hex(id * 31)), TIMESTAMP_NTZ '2020-01-01 00:00:00' + make_interval(0, 0, 0, CAST(id % 30 AS INT))"
          + " FROM range(" + (f * 30) + ", " + (f * 30 + 30) + ")");
      if (f == 1) {
        sql("ALTER TABLE " + special + " CREATE TAG t1");
      }
    }
    sql("DELETE FROM " + special + " WHERE id % 7 = 0");
    sql("UPDATE " + special + " SET `with space` = `with space` + 100 WHERE id % 5 = 0");
    sql("ALTER TABLE " + special + " CREATE BRANCH audit");
    sql("DELETE FROM " + special + ".branch_audit WHERE id % 3 = 0");
    sql("CALL " + CATALOG + ".system.compute_table_stats(table => '" + SPECIAL + "')");
    names.add(SPECIAL);

    // v3: days of a timestamp_ntz (old days, so condensing applies), merge-on-read deletes as
    // deletion
    // vectors, schema evolution (int -> long, a new nested column), a tag and a branch with an
    // update of its own
    String v3 = CATALOG + ".db.v3_dv_days";
    sql("CREATE TABLE " + v3 + " " + TYPED_COLUMNS + " USING iceberg PARTITIONED BY (days(ts))"
        + " TBLPROPERTIES ('format-version'='3', " + MOR + ")");
    sql("INSERT INTO " + v3 + " " + typedRows(0, 40, "2020-01-01 00:00:00"));
    sql("INSERT INTO " + v3 + " " + typedRows(40, 80, "2020-01-01 00:00:00"));
    sql("ALTER TABLE " + v3 + " CREATE TAG t1");
    sql("DELETE FROM " + v3 + " WHERE id % 7 = 0");
    sql("UPDATE " + v3 + " SET cat = 'updated', d = CAST('NaN' AS DOUBLE) WHERE id % 5 = 1");
    sql("ALTER TABLE " + v3 + " ALTER COLUMN i TYPE BIGINT");
    sql("ALTER TABLE " + v3 + " ADD COLUMN extra STRUCT<p: INT, q: ARRAY<MAP<STRING, INT>>>");
    sql("INSERT INTO " + v3
        + " SELECT *, named_struct('p', CAST(id AS INT), 'q', array(map('z', CAST(id AS INT)))) FROM ("
        + typedRows(80, 100, "2020-02-01 00:00:00") + ")");
    sql("ALTER TABLE " + v3 + " CREATE BRANCH audit");
    sql("UPDATE " + v3 + ".branch_audit SET cat = 'branch' WHERE id % 4 = 0");
    names.add("db.v3_dv_days");

    // v2 with years, evolved to months and then to hours of a timestamp with zone; plus uuid and
    // fixed columns:
    // Spark's DDL has neither type, so the table is created through Iceberg's catalog API and Spark
    // writes every row
    Schema uuidSchema = new Schema(
        Types.NestedField.optional(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "u", Types.UUIDType.get()),
        Types.NestedField.optional(3, "f", Types.FixedType.ofLength(4)),
        Types.NestedField.optional(4, "tz", Types.TimestampType.withZone()));
    catalog
        .buildTable(TableIdentifier.of(Namespace.of("db"), "v2_time_evolved"), uuidSchema)
        .withPartitionSpec(
            org.apache.iceberg.PartitionSpec.builderFor(uuidSchema).year("tz").build())
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .withProperty("write.delete.mode", "merge-on-read")
        .create();
    String time = CATALOG + ".db.v2_time_evolved";
    String timeRows =
        "SELECT id, CASE WHEN id % 9 = 0 THEN NULL ELSE uuid() END, unhex(lpad(hex(id), 8, '0')),"
            + " TIMESTAMP '2020-01-01 00:00:00' + make_interval(0, CAST(id % 5 AS INT), 0, CAST(id % 20 AS INT), CAST(id % 24 AS INT)) FROM range(";
    sql("INSERT INTO " + time + " " + timeRows + "0, 30)");
    sql("ALTER TABLE " + time + " REPLACE PARTITION FIELD tz_year WITH months(tz)");
    sql("INSERT INTO " + time + " " + timeRows + "30, 60)");
    sql("ALTER TABLE " + time + " CREATE TAG t1");
    sql("ALTER TABLE " + time + " REPLACE PARTITION FIELD tz_month WITH hours(tz)");
    sql("INSERT INTO " + time + " " + timeRows + "60, 90)");
    sql("DELETE FROM " + time + " WHERE id % 4 = 0");
    names.add("db.v2_time_evolved");

    // unpartitioned v2, many small files, nothing else: what most tables look like
    String plain = CATALOG + ".db.plain";
    sql("CREATE TABLE " + plain
        + " (id BIGINT, note STRING) USING iceberg TBLPROPERTIES ('format-version'='2')");
    for (int f = 0; f < 3; f++) {
      sql("INSERT INTO " + plain + " SELECT id, concat('n-', id) FROM range(" + (f * 10) + ", "
          + (f * 10 + 10) + ")");
    }
    names.add("db.plain");
    return names;
  }

  /** Spark's rows of one table at a snapshot id or a ref name, type-tagged, sorted. */
  static List<String> sparkRows(String table, String version) {
    Dataset<Row> rows =
        spark.sql("SELECT * FROM " + CATALOG + "." + table + " VERSION AS OF " + version);
    StructType schema = rows.schema();
    List<String> out = new ArrayList<>();
    for (Row r : rows.collectAsList()) {
      out.add(render(schema, r));
    }
    out.sort(null);
    return out;
  }

  static String render(DataType type, Object v) {
    if (v == null) {
      return "null:" + type.simpleString();
    }
    if (type instanceof StructType struct) {
      Row row = (Row) v;
      StringBuilder b = new StringBuilder("{");
      StructField[] fields = struct.fields();
      for (int i = 0; i < fields.length; i++) {
        b.append(fields[i].name())
            .append('=')
            .append(render(fields[i].dataType(), row.get(i)))
            .append(i + 1 < fields.length ? ", " : "");
      }
      return b.append('}').toString();
    }
    if (type instanceof ArrayType array) {
      StringBuilder b = new StringBuilder("[");
      for (Object e : scala.jdk.javaapi.CollectionConverters.asJava((scala.collection.Seq<?>) v)) {
        b.append(render(array.elementType(), e)).append(';');
      }
      return b.append(']').toString();
    }
    if (type instanceof MapType map) {
      TreeSet<String> entries = new TreeSet<>();
      scala.jdk.javaapi.CollectionConverters.asJava((scala.collection.Map<?, ?>) v)
          .forEach(
              (k, e) -> entries.add(render(map.keyType(), k) + "->" + render(map.valueType(), e)));
      return "map" + entries;
    }
    if (type instanceof BinaryType) {
      return "binary:" + HexFormat.of().formatHex((byte[]) v);
    }
    if (type instanceof DoubleType) {
      return "double:" + v + "#" + Long.toHexString(Double.doubleToRawLongBits((Double) v));
    }
    if (type instanceof FloatType) {
      return "float:" + v + "#" + Integer.toHexString(Float.floatToRawIntBits((Float) v));
    }
    return type.simpleString() + ":" + v + "/" + v.getClass().getSimpleName();
  }

  /** Every ref's rows and every snapshot's, as Spark reads them. */
  static Map<String, List<String>> contents(String name) {
    Table table = catalog.loadTable(
        name.equals(SPECIAL)
            ? TableIdentifier.of("db", "odd.name:v2")
            : TableIdentifier.parse(name));
    Map<String, List<String>> out = new TreeMap<>();
    table.refs().keySet().forEach(ref -> out.put("ref " + ref, sparkRows(name, "'" + ref + "'")));
    for (Snapshot s : table.snapshots()) {
      out.put("snapshot " + s.snapshotId(), sparkRows(name, Long.toString(s.snapshotId())));
    }
    return out;
  }

  static long sparkCount(String query) {
    return spark.sql(query).collectAsList().get(0).getLong(0);
  }

  static JsonNode operation(JsonNode report, String table, String operation) {
    for (JsonNode t : report.get("tables")) {
      if (t.get("table").asText().equals(table)) {
        for (JsonNode o : t.get("operations")) {
          if (o.get("operation").asText().equals(operation)) {
            return o;
          }
        }
      }
    }
    throw new AssertionError(table + " " + operation + " not in the report");
  }

  record Run(int exit, String out, String err) {}

  static Run resurfacer(String... args) throws IOException, InterruptedException {
    String jar = System.getProperty("resurfacer.jar");
    assertThat(Path.of(jar))
        .as("the runnable jar (built by resurfacer-cli's package phase)")
        .exists();
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m",
        "-jar",
        jar));
    command.addAll(List.of(args));
    command.addAll(List.of(
        "--catalog-name",
        CATALOG,
        "--catalog-uri",
        SqliteCatalogs.uri(dir),
        "--warehouse",
        SqliteCatalogs.warehouse(dir)));
    Path err = Files.createTempFile(dir, "stderr", ".txt");
    Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int exit = p.waitFor();
    return new Run(exit, out, Files.readString(err));
  }

  @Test
  void
      maintainWithEveryOperationOverASparkWrittenOddCatalogIsDoneOrNothingToDoAndSparkReadsEveryKeptSnapshotAlike()
          throws Exception {
    List<String> names = buildCatalog();
    Map<String, Map<String, List<String>>> before = new LinkedHashMap<>();
    for (String name : names) {
      before.put(name, contents(name));
      assertThat(before.get(name)).as(name).containsKey("ref main");
    }
    // what the catalog holds is what it should: Spark's position deletes on v2, deletion vectors on
    // v3, its statistics file
    assertThat(sparkCount("SELECT count(*) FROM " + CATALOG + "." + SPECIAL
            + ".delete_files WHERE file_format = 'PARQUET'"))
        .isPositive();
    assertThat(sparkCount("SELECT count(*) FROM " + CATALOG
            + ".db.v3_dv_days.delete_files WHERE file_format = 'PUFFIN'"))
        .isPositive();
    assertThat(catalog.loadTable(TableIdentifier.of("db", "odd.name:v2")).statisticsFiles())
        .isNotEmpty();
    // an orphan older than any guard, in a table's data directory: remove-orphans has something to
    // remove
    Table plain = catalog.loadTable(TableIdentifier.of("db", "plain"));
    String location = plain.location() + "/data/orphan-from-a-failed-job.parquet";
    Path orphan =
        location.startsWith("file:") ? Path.of(java.net.URI.create(location)) : Path.of(location);
    Files.createDirectories(orphan.getParent());
    Files.writeString(orphan, "not referenced by any snapshot");
    Files.setLastModifiedTime(
        orphan,
        java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 7L * 86_400_000));
    Path policy = dir.resolve("every.yml");
    // expiry with no age guard and retain-last 1: every snapshot that no tag or branch holds goes,
    // so expiry does something everywhere
    Files.writeString(policy, EveryOperation.POLICY);

    Run run = resurfacer(
        "maintain", "--config", policy.toString(), "--quiet", "--output", "json", "--yes");

    assertThat(run.exit()).as(run.out() + run.err()).isZero();
    JsonNode report = new ObjectMapper().readTree(run.out());
    List<String> reported = new ArrayList<>();
    for (JsonNode t : report.get("tables")) {
      String name = t.get("table").asText();
      reported.add(name);
      assertThat(t.get("outcome").asText()).as(t.toString()).isIn("done", "nothing_to_do");
      List<String> operations = new ArrayList<>();
      for (JsonNode o : t.get("operations")) {
        operations.add(o.get("operation").asText());
        assertThat(o.get("outcome").asText()).as(name + " " + o).isIn("done", "nothing_to_do");
        assertThat(o.get("message").asText()).as(name + " " + o).isNotBlank();
      }
      assertThat(operations).as(name).containsExactlyElementsOf(EveryOperation.DESIGN_ORDER);
    }
    assertThat(reported).containsExactlyInAnyOrderElementsOf(names);
    // "previewed" appears only as the summary's count, which is 0: no outcome anywhere says it, no
    // message says "would"
    assertThat(run.out())
        .doesNotContainPattern("\"outcome\"\\s*:\\s*\"previewed\"")
        .doesNotContain("would ");
    assertThat(report.findValuesAsText("outcome")).isNotEmpty().doesNotContain("previewed");
    assertThat(report.get("summary").get("previewed").asLong()).isZero();
    assertThat(orphan).doesNotExist();
    assertThat(operation(report, "db.plain", "remove-orphans").get("outcome").asText())
        .isEqualTo("done");
    // condensing applies to the tables whose default spec has days or hours of old data; elsewhere
    // it says why not
    for (String name : List.of("db.v3_dv_days", "db.v2_time_evolved")) {
      assertThat(operation(report, name, "condense").get("outcome").asText())
          .as(name)
          .isEqualTo("done");
    }
    for (String name : List.of(SPECIAL, "db.v1_evolved", "db.plain")) {
      assertThat(operation(report, name, "condense").get("message").asText())
          .as(name)
          .startsWith("does not apply: the default spec");
    }

    for (String name : names) {
      Map<String, List<String>> was = before.get(name);
      Map<String, List<String>> now = contents(name);
      assertThat(now.keySet())
          .as(name)
          .containsAll(was.keySet().stream().filter(k -> k.startsWith("ref ")).toList());
      now.forEach((what, rows) -> {
        if (was.containsKey(what)) {
          assertThat(rows).as(name + " " + what).isEqualTo(was.get(what));
        }
      });
      // expiry did something: only the snapshots the refs hold (and the commits maintain made on
      // main) are left
      assertThat(now.keySet().stream()
              .filter(k -> k.startsWith("snapshot ") && was.containsKey(k))
              .count())
          .as(name)
          .isLessThan(
              was.keySet().stream().filter(k -> k.startsWith("snapshot ")).count());
    }
  }
}
