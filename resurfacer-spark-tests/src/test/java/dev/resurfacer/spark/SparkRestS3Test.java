package dev.resurfacer.spark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.RestCatalogServer;
import dev.resurfacer.iceberg.testing.S3Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark writes a merge-on-read table into Iceberg's REST catalog with the warehouse on S3; every
 * operation then runs through the runnable jar against the same catalog; Spark reads identical rows.
 */
class SparkRestS3Test {
  static final String CATALOG = "rest";

  @RegisterExtension
  @Order(1)
  static final S3Server S3 = new S3Server();

  @RegisterExtension
  @Order(2)
  static final RestCatalogServer REST = new RestCatalogServer(S3, "spark");

  @TempDir
  static Path dir;

  static SparkSession spark;

  @BeforeAll
  static void start() {
    var builder = SparkSession.builder()
        .master("local[2]")
        .appName("resurfacer-rest-s3")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.local.dir", dir.toString())
        .config(
            "spark.sql.extensions",
            "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config("spark.sql.catalog." + CATALOG, "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog." + CATALOG + ".type", "rest")
        .config("spark.sql.catalog." + CATALOG + ".uri", REST.uri())
        .config("spark.sql.catalog." + CATALOG + ".warehouse", REST.warehouse())
        .config("spark.sql.catalog." + CATALOG + ".io-impl", "org.apache.iceberg.aws.s3.S3FileIO")
        .config("spark.sql.catalog." + CATALOG + ".cache-enabled", "false");
    REST.clientProperties()
        .forEach((k, v) -> builder.config("spark.sql.catalog." + CATALOG + "." + k, v));
    spark = builder.getOrCreate();
    spark.sql("CREATE NAMESPACE IF NOT EXISTS " + CATALOG + ".db");
  }

  @AfterAll
  static void stop() {
    if (spark != null) {
      spark.stop();
    }
  }

  static List<String> rows(String table) {
    return spark.sql("SELECT * FROM " + CATALOG + "." + table).collectAsList().stream()
        .map(Row::toString)
        .sorted()
        .toList();
  }

  static String config() throws IOException {
    StringBuilder yaml =
        new StringBuilder("catalogs:\n  " + CATALOG + ":\n    type: rest\n    uri: " + REST.uri()
            + "\n    warehouse: " + REST.warehouse() + "\n    properties:\n");
    for (Map.Entry<String, String> e : REST.clientProperties().entrySet()) {
      yaml.append("      ")
          .append(e.getKey())
          .append(": \"")
          .append(e.getValue())
          .append("\"\n");
    }
    Path file = dir.resolve("resurfacer.yml");
    Files.writeString(file, yaml);
    return file.toString();
  }

  static String resurfacer(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m",
        "-Daws.requestChecksumCalculation=WHEN_REQUIRED",
        "-Daws.responseChecksumValidation=WHEN_REQUIRED",
        "-jar",
        System.getProperty("resurfacer.jar")));
    command.addAll(List.of(args));
    command.addAll(List.of("--config", config(), "--catalog", CATALOG));
    Path err = Files.createTempFile(dir, "stderr", ".txt");
    Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor())
        .as("resurfacer %s:%n%s%n%s", String.join(" ", args), out, Files.readString(err))
        .isZero();
    return out;
  }

  @Test
  void everyOperationOnRestAndS3ReadsBackIdenticallyInSpark() throws Exception {
    String t = CATALOG + ".db.events";
    spark.sql("CREATE TABLE " + t
        + " (id BIGINT, cat STRING, note STRING) USING iceberg PARTITIONED BY (cat)"
        + " TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read',"
        + " 'write.merge.mode'='merge-on-read')");
    for (int batch = 0; batch < 3; batch++) {
      spark.sql("INSERT INTO " + t
          + " SELECT id, CASE WHEN id % 2 = 0 THEN 'a' ELSE 'b' END, concat('n-', id)"
          + " FROM range(" + (batch * 40) + ", " + (batch * 40 + 40) + ")");
    }
    spark.sql("DELETE FROM " + t + " WHERE id % 7 = 0");
    spark.sql("UPDATE " + t + " SET note = 'updated' WHERE id % 5 = 0");
    List<String> before = rows("db.events");
    assertThat(spark
            .sql("SELECT count(*) FROM " + t + ".delete_files")
            .collectAsList()
            .get(0)
            .getLong(0))
        .isPositive();

    resurfacer("compact", "db.events", "--min-input-files", "2", "--yes");
    resurfacer("remove-dangling-deletes", "db.events", "--yes");
    resurfacer("rewrite-manifests", "db.events", "--yes");
    resurfacer("expire", "db.events", "--older-than", "0s", "--retain-last", "1", "--yes");
    resurfacer("remove-orphans", "db.events", "--older-than", "0s", "--yes");

    assertThat(rows("db.events")).isEqualTo(before);
    assertThat(spark
            .sql("SELECT count(*) FROM " + t + ".snapshots")
            .collectAsList()
            .get(0)
            .getLong(0))
        .isEqualTo(1);
    assertThat(spark
            .sql("SELECT count(*) FROM " + t + ".delete_files")
            .collectAsList()
            .get(0)
            .getLong(0))
        .isZero();
    // every file Spark's metadata names is still in the bucket
    for (Row r : spark.sql("SELECT file_path FROM " + t + ".all_files").collectAsList()) {
      assertThat(S3.objects(REST.warehouse())).contains(r.getString(0));
    }
  }
}
