package dev.resurfacer.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Spark as the CDC writer: merge-on-read {@code DELETE} and {@code UPDATE} statements (position
 * deletes on v2, deletion vectors on v3) run back to back while {@code compact --yes} (the runnable
 * jar, in its own JVM) rewrites the same partitions. Every group commits, carrying Spark's deletes
 * onto the new files when Spark won the race, and Spark then reads exactly the rows its own
 * statements left, as does Iceberg's generic reader.
 */
class SparkCdcCompactionTest {
  static final String CATALOG = "lake";

  @TempDir
  static Path dir;

  static SparkSession spark;
  static JdbcCatalog catalog;

  @BeforeAll
  static void start() throws IOException {
    catalog = SqliteCatalogs.create(CATALOG, dir);
    spark = IcebergSparkSessions.start("resurfacer-cdc", dir, CATALOG);
    spark.sql("CREATE NAMESPACE IF NOT EXISTS " + CATALOG + ".db");
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

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {2, 3})
  void compactionBesideSparksDeletesAndUpdatesCommitsAndSparkReadsItsOwnRows(int version)
      throws Exception {
    String name = "db.cdc_v" + version;
    String t = CATALOG + "." + name;
    spark.sql("CREATE TABLE " + t
        + " (id BIGINT, cat STRING, note STRING) USING iceberg PARTITIONED BY (cat)"
        + " TBLPROPERTIES ('format-version'='" + version + "', 'write.delete.mode'='merge-on-read',"
        + " 'write.update.mode'='merge-on-read', 'write.merge.mode'='merge-on-read')");
    for (int batch = 0; batch < 6; batch++) {
      spark.sql("INSERT INTO " + t
          + " SELECT id, CASE WHEN id % 2 = 0 THEN 'a' ELSE 'b' END, concat('n-', id) FROM range("
          + batch * 40_000 + ", " + (batch + 1) * 40_000 + ")");
    }
    Table table = catalog.loadTable(TableIdentifier.parse(name));

    int carried = 0;
    int statements = 0;
    for (int run = 0; run < 6 && carried == 0; run++) {
      Process compact = resurfacer(
          name,
          "compact",
          name,
          "--min-input-files",
          "2",
          "--rewrite-all",
          "--runner",
          "generic",
          "--yes");
      // Spark deletes and updates rows of every partition for as long as the compaction runs, one
      // statement a second at most (the CDC rate the carry is specified for): back to back, a
      // commit
      // every few hundred milliseconds on a loaded machine outran all ten translate-and-commit
      // attempts
      do {
        long started = System.nanoTime();
        long id = 7 + 9_973L * statements % 239_000;
        sparkRetrying(
            statements % 2 == 0
                ? "DELETE FROM " + t + " WHERE id IN (" + id + ", " + (id + 1) + ")"
                : "UPDATE " + t + " SET note = concat(note, '+u') WHERE id IN (" + id + ", "
                    + (id + 1) + ")");
        statements++;
        long left = 1_000 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        if (left > 0 && compact.isAlive()) {
          Thread.sleep(left);
        }
      } while (compact.isAlive());
      String out = finish(compact, name);
      assertThat(out)
          .as("compact output")
          .contains("committed")
          .doesNotContain("not_committed")
          .doesNotContain("failed");
      carried += (int) out.lines()
          .filter(l -> l.contains("deleted concurrently onto the new files"))
          .count();
    }
    assertThat(carried).as("groups that carried Spark's concurrent deletes").isPositive();

    table.refresh();
    assertThat(Rows.sortedStrings(table))
        .as("Iceberg's generic reader")
        .isEqualTo(expected(statements));
    assertThat(sparkRows(t)).as("Spark").isEqualTo(expectedSpark(statements));
    System.out.printf(
        "spark cdc v%d: %d Spark statements, %d groups carried concurrent deletes%n",
        version, statements, carried);
  }

  /** Runs a statement as a CDC job does: when a compaction's commit won (a file it read was replaced), again. */
  private static void sparkRetrying(String statement) {
    for (int attempt = 1; ; attempt++) {
      try {
        spark.sql(statement);
        return;
      } catch (RuntimeException e) {
        Throwable cause = e;
        while (cause != null
            && !(cause instanceof org.apache.iceberg.exceptions.ValidationException
                || cause instanceof org.apache.iceberg.exceptions.CommitFailedException)) {
          cause = cause.getCause();
        }
        if (cause == null || attempt >= 10) {
          throw e;
        }
      }
    }
  }

  /** The rows Spark's statements leave, computed independently of any table read. */
  private static List<String> expected(int statements) {
    return rows(statements, (id, cat, note) -> id + "|" + cat + "|" + note + "|");
  }

  private static List<String> expectedSpark(int statements) {
    return rows(statements, (id, cat, note) -> "[" + id + "," + cat + "," + note + "]");
  }

  private interface Render {
    String row(long id, String cat, String note);
  }

  private static List<String> rows(int statements, Render render) {
    java.util.Map<Long, String> notes = new java.util.TreeMap<>();
    for (long id = 0; id < 240_000; id++) {
      notes.put(id, "n-" + id);
    }
    for (int s = 0; s < statements; s++) {
      long id = 7 + 9_973L * s % 239_000;
      for (long i = id; i <= id + 1; i++) {
        if (s % 2 == 0) {
          notes.remove(i);
        } else if (notes.containsKey(i)) {
          notes.put(i, notes.get(i) + "+u");
        }
      }
    }
    List<String> out = new ArrayList<>();
    notes.forEach((id, note) -> out.add(render.row(id, id % 2 == 0 ? "a" : "b", note)));
    out.sort(null);
    return out;
  }

  private static List<String> sparkRows(String table) {
    return spark.sql("SELECT * FROM " + table).collectAsList().stream()
        .map(Row::toString)
        .sorted()
        .toList();
  }

  private static Process resurfacer(String tag, String... args) throws IOException {
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
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve(tag + ".out").toFile())
        .start();
  }

  private static String finish(Process p, String tag) throws Exception {
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
    String out = Files.readString(dir.resolve(tag + ".out"));
    assertThat(p.exitValue()).as("compact:%n%s", out).isZero();
    return out;
  }
}
