package dev.resurfacer.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * Builds a fleet of small tables the way a plain Iceberg Java writer leaves them: {@code tables}
 * tables {@code db.t0000…} spread round-robin over {@code catalogs} SQLite JDBC catalogs
 * ({@code live/c<k>/catalog.db}, catalog name {@code c<k>}), each {@code files} Parquet files of
 * {@code rows} rows (the events schema, day-partitioned over {@code days} days) committed as
 * {@code snapshots} appends, plus {@code orphans} unreferenced files dated 10 days back in its data
 * directory. Writes {@code live/resurfacer.yml} naming every catalog, then copies live/ to pristine/.
 *
 * <pre>SmallTables --scenario DIR [--tables 200] [--catalogs 4] [--files 40] [--rows 1000] [--days 4] [--snapshots 10] [--orphans 2] [--threads 2]</pre>
 */
public final class SmallTables {
  private SmallTables() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = Args.parse(args);
    Path scenario = Path.of(a.get("scenario")).toAbsolutePath().normalize();
    int tables = Integer.parseInt(a.getOrDefault("tables", "200"));
    int catalogs = Integer.parseInt(a.getOrDefault("catalogs", "4"));
    int files = Integer.parseInt(a.getOrDefault("files", "40"));
    int rows = Integer.parseInt(a.getOrDefault("rows", "1000"));
    int days = Integer.parseInt(a.getOrDefault("days", "4"));
    int snapshots = Math.min(files, Integer.parseInt(a.getOrDefault("snapshots", "10")));
    int orphans = Integer.parseInt(a.getOrDefault("orphans", "2"));
    int threads = Integer.parseInt(a.getOrDefault("threads", "2"));
    long t0 = System.nanoTime();
    BenchTable.deleteTree(scenario);
    Path live = BenchTable.live(scenario);
    long bytes = 0;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    StringBuilder yml = new StringBuilder("catalogs:\n");
    FileTime old = FileTime.from(Instant.now().minus(Duration.ofDays(10)));
    for (int c = 0; c < catalogs; c++) {
      Path dir = live.resolve("c" + c);
      Files.createDirectories(dir);
      yml.append(String.format(
          Locale.ROOT,
          "  c%d: {type: jdbc, uri: \"%s\", warehouse: \"%s\"}%n",
          c,
          BenchTable.uri(dir),
          BenchTable.warehouse(dir)));
      try (JdbcCatalog catalog = open(dir, "c" + c)) {
        catalog.createNamespace(Namespace.of("db"));
        for (int t = c; t < tables; t += catalogs) {
          Table table = catalog.createTable(
              TableIdentifier.of("db", String.format(Locale.ROOT, "t%04d", t)),
              BenchTable.SCHEMA,
              BenchTable.SPEC,
              Map.of(
                  TableProperties.FORMAT_VERSION,
                  "2",
                  TableProperties.PARQUET_COMPRESSION,
                  "zstd"));
          List<Future<DataFile>> written = new ArrayList<>();
          for (int i = 0; i < files; i++) {
            final int index = i;
            final long seed = 42L + t;
            written.add(pool.submit(() -> Generate.writeFile(table, index, rows, days, seed)));
          }
          for (int s = 0; s < snapshots; s++) {
            org.apache.iceberg.AppendFiles append = table.newAppend();
            for (int i = s * files / snapshots; i < (s + 1) * files / snapshots; i++) {
              DataFile file = written.get(i).get();
              bytes += file.fileSizeInBytes();
              append.appendFile(file);
            }
            append.commit();
          }
          Path data = Path.of(table.location().replaceFirst("^file:", "")).resolve("data");
          for (int o = 0; o < orphans; o++) {
            Path orphan = Files.createFile(
                data.resolve(String.format(Locale.ROOT, "%05d-orphan-00001.parquet", o)));
            Files.setLastModifiedTime(orphan, old);
          }
        }
      }
    }
    pool.shutdown();
    write(live.resolve("resurfacer.yml"), yml.toString());
    long genMs = (System.nanoTime() - t0) / 1_000_000;
    BenchTable.copyTree(live, BenchTable.pristine(scenario));
    // the copy dates every file now; the orphans must stay old enough for the 3-day age guard (cp
    // -a keeps the dates)
    try (java.util.stream.Stream<Path> all = Files.walk(BenchTable.pristine(scenario))) {
      for (Path p : (Iterable<Path>)
          all.filter(p -> p.getFileName().toString().endsWith("-orphan-00001.parquet"))::iterator) {
        Files.setLastModifiedTime(p, old);
      }
    }
    System.out.printf(
        Locale.ROOT,
        "generated %s: %d tables in %d catalogs, each %d files x %d rows + %d orphans; %s parquet in %.1f s%n",
        scenario,
        tables,
        catalogs,
        files,
        rows,
        orphans,
        BenchTable.mb(bytes),
        genMs / 1000.0);
  }

  static JdbcCatalog open(Path dir, String name) {
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.setConf(dev.resurfacer.iceberg.catalog.Catalogs.localHadoopConf());
    catalog.initialize(
        name,
        Map.of(
            org.apache.iceberg.CatalogProperties.URI, BenchTable.uri(dir),
            org.apache.iceberg.CatalogProperties.WAREHOUSE_LOCATION, BenchTable.warehouse(dir)));
    return catalog;
  }

  private static void write(Path file, String text) {
    try {
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
