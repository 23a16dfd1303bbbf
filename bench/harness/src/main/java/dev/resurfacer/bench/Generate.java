package dev.resurfacer.bench;

import dev.resurfacer.iceberg.write.TableWrites;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * Builds the benchmark table: {@code files} Parquet files of {@code rows} rows each, every file in
 * one day partition (file i in day i mod days), committed as {@code snapshots} append snapshots;
 * format v2, zstd. Deterministic: file i's rows come from a generator seeded with seed + i, so
 * the parallel writers produce the same rows in any schedule. Then the scenario's live/ directory
 * is copied to pristine/.
 *
 * <pre>Generate --scenario DIR [--files 1000] [--rows 10000] [--days 4] [--snapshots 100] [--threads 2] [--seed 42]
 *     [--transaction true]   (all snapshots in one transaction: one metadata.json, for the 5,000-snapshot table)</pre>
 */
public final class Generate {
  static final String[] EVENTS = {
    "view", "click", "add_to_cart", "remove_from_cart", "checkout", "purchase", "search", "login"
  };
  static final String[] COUNTRIES = {
    "US", "DE", "FR", "GB", "JP", "BR", "IN", "CA", "AU", "ES", "IT", "NL", "SE", "PL", "MX", "KR"
  };
  static final String[] DEVICES = {"ios", "android", "web", "tv"};
  static final String[] SECTIONS = {"products", "category", "search", "account", "checkout", "help"
  };
  static final LocalDateTime START = LocalDateTime.of(2026, 10, 1, 0, 0);

  private Generate() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = Args.parse(args);
    Path scenario = Path.of(a.getOrDefault("scenario", "bench/work/events"))
        .toAbsolutePath()
        .normalize();
    int files = Integer.parseInt(a.getOrDefault("files", "1000"));
    int rows = Integer.parseInt(a.getOrDefault("rows", "10000"));
    int days = Integer.parseInt(a.getOrDefault("days", "4"));
    int snapshots = Math.min(files, Integer.parseInt(a.getOrDefault("snapshots", "100")));
    int threads = Integer.parseInt(
        a.getOrDefault("threads", String.valueOf(Runtime.getRuntime().availableProcessors())));
    long seed = Long.parseLong(a.getOrDefault("seed", "42"));
    // one transaction: thousands of snapshots without rewriting an ever-growing metadata.json per
    // commit
    boolean oneTransaction = Boolean.parseBoolean(a.getOrDefault("transaction", "false"));

    long t0 = System.nanoTime();
    BenchTable.deleteTree(scenario);
    Path live = BenchTable.live(scenario);
    long bytes = 0;
    try (JdbcCatalog catalog = BenchTable.open(live)) {
      catalog.createNamespace(org.apache.iceberg.catalog.Namespace.of("db"));
      Table table = catalog.createTable(
          TableIdentifier.parse(BenchTable.TABLE),
          BenchTable.SCHEMA,
          BenchTable.SPEC,
          Map.of(TableProperties.FORMAT_VERSION, "2", TableProperties.PARQUET_COMPRESSION, "zstd"));
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<DataFile>> written = new ArrayList<>();
      for (int i = 0; i < files; i++) {
        final int index = i;
        written.add(pool.submit(() -> writeFile(table, index, rows, days, seed)));
      }
      // commit in file order as the writers finish: snapshot s appends files [s*n/S, (s+1)*n/S)
      int next = 0;
      Transaction tx = oneTransaction ? table.newTransaction() : null;
      for (int s = 0; s < snapshots; s++) {
        int end = (int) ((long) (s + 1) * files / snapshots);
        AppendFiles append = tx != null ? tx.newAppend() : table.newAppend();
        for (; next < end; next++) {
          DataFile f = written.get(next).get();
          bytes += f.fileSizeInBytes();
          append.appendFile(f);
        }
        append.commit();
      }
      if (tx != null) {
        tx.commitTransaction();
      }
      pool.shutdown();
    }
    long genMs = (System.nanoTime() - t0) / 1_000_000;
    long t1 = System.nanoTime();
    BenchTable.copyTree(live, BenchTable.pristine(scenario));
    long copyMs = (System.nanoTime() - t1) / 1_000_000;
    System.out.printf(
        Locale.ROOT,
        "generated %s: %d files x %d rows = %d rows, %d days, %d snapshots, %s parquet in %.1f s (%d threads); pristine copy %.1f s%n",
        scenario,
        files,
        rows,
        (long) files * rows,
        days,
        snapshots,
        BenchTable.mb(bytes),
        genMs / 1000.0,
        threads,
        copyMs / 1000.0);
  }

  static DataFile writeFile(Table table, int index, int rows, int days, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed * 1_000_003L + index);
    int day = index % days;
    LocalDateTime dayStart = START.plusDays(day);
    List<Record> records = new ArrayList<>(rows);
    GenericRecord proto = GenericRecord.create(BenchTable.SCHEMA);
    for (int j = 0; j < rows; j++) {
      GenericRecord r = proto.copy();
      r.set(0, (long) index * rows + j);
      r.set(1, (long) rnd.nextInt(1_000_000));
      r.set(2, EVENTS[rnd.nextInt(EVENTS.length)]);
      r.set(3, dayStart.plusNanos(rnd.nextLong(86_400_000_000L) * 1000));
      r.set(4, BigDecimal.valueOf(rnd.nextLong(10_000_000L), 2));
      r.set(5, COUNTRIES[rnd.nextInt(COUNTRIES.length)]);
      r.set(6, DEVICES[rnd.nextInt(DEVICES.length)]);
      r.set(7, new UUID(rnd.nextLong(), rnd.nextLong()));
      r.set(
          8,
          String.format(
              Locale.ROOT,
              "https://shop.io/%s/item%08d?r=%06x",
              SECTIONS[rnd.nextInt(SECTIONS.length)],
              rnd.nextInt(100_000_000),
              rnd.nextInt(1 << 24)));
      r.set(9, rnd.nextDouble() * 100.0);
      records.add(r);
    }
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    key.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(records.get(0)));
    return TableWrites.writeData(table, table.spec(), key, records);
  }
}
