package dev.resurfacer.spark;

import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/** A local Spark with Iceberg's runtime on the SQLite JDBC catalog {@code catalog} under {@code dir}, the one our code opens too. */
final class IcebergSparkSessions {
  private IcebergSparkSessions() {}

  static SparkSession start(String appName, Path dir, String catalog) throws IOException {
    Path scratch = Files.createDirectories(dir.resolve("scratch"));
    return SparkSession.builder()
        .master("local[2]")
        .appName(appName)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.local.dir", scratch.toString())
        .config("spark.sql.warehouse.dir", dir.resolve("spark-warehouse").toString())
        .config(
            "spark.sql.extensions",
            "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config("spark.sql.catalog." + catalog, "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog." + catalog + ".type", "jdbc")
        .config("spark.sql.catalog." + catalog + ".uri", SqliteCatalogs.uri(dir))
        .config("spark.sql.catalog." + catalog + ".warehouse", SqliteCatalogs.warehouse(dir))
        // our commits happen outside Spark: never serve a cached table version
        .config("spark.sql.catalog." + catalog + ".cache-enabled", "false")
        .getOrCreate();
  }
}
