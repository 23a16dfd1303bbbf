package dev.resurfacer.bench;

import dev.resurfacer.iceberg.write.TableWrites;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;

/**
 * A CDC writer for the compaction-beside-a-writer benchmark: into one table per lane (each its own
 * SQLite catalog under {@code DIR/LANE}), the same sequence of merge-on-read changes — a row deleted
 * by position, or updated (the same delete plus the new version, one commit) — at a fixed rate, each
 * validated from the snapshot it read as engines do and retried when a compaction won. Position
 * deletes are Parquet files on v2 and deletion vectors on v3. Every SAMPLE seconds each lane's live
 * data and delete files are written to the CSV.
 *
 * <pre>CdcBench --dir DIR --lanes ours,spark --create true --version 2 --partitions 4 --files 30 --rows 300
 * CdcBench --dir DIR --lanes ours,spark --rate 1 --minutes 5 --sample-seconds 10 --csv OUT.csv</pre>
 */
public final class CdcBench {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "day", Types.IntegerType.get()),
      Types.NestedField.optional(3, "status", Types.StringType.get()),
      Types.NestedField.optional(4, "amount", Types.DoubleType.get()),
      Types.NestedField.optional(5, "updated", Types.TimestampType.withoutZone()));
  static final PartitionSpec SPEC =
      PartitionSpec.builderFor(SCHEMA).identity("day").build();
  static final TableIdentifier ID = TableIdentifier.of("db", "cdc");

  private CdcBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = Args.parse(args);
    Path dir = Path.of(a.getOrDefault("dir", "bench/work/cdc")).toAbsolutePath().normalize();
    List<String> lanes = List.of(a.getOrDefault("lanes", "ours,spark").split(","));
    if (Boolean.parseBoolean(a.getOrDefault("create", "false"))) {
      create(dir, lanes, a);
      return;
    }
    double rate = Double.parseDouble(a.getOrDefault("rate", "1"));
    long seconds = Math.round(Double.parseDouble(a.getOrDefault("minutes", "5")) * 60);
    int sampleSeconds = Integer.parseInt(a.getOrDefault("sample-seconds", "10"));
    Path csv = Path.of(a.getOrDefault("csv", dir.resolve("samples.csv").toString()));
    Map<String, JdbcCatalog> catalogs = new TreeMap<>();
    Map<String, Random> randoms = new TreeMap<>();
    Map<String, int[]> counts = new TreeMap<>();
    for (String lane : lanes) {
      catalogs.put(lane, BenchTable.open(dir.resolve(lane)));
      randoms.put(lane, new Random(2026));
      counts.put(lane, new int[2]);
    }
    long start = System.nanoTime();
    long nextSample = 0;
    long period = Math.round(1_000_000_000L / rate);
    try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv))) {
      out.println("lane,elapsed_s,writer_commits,writer_retries,data_files,delete_files");
      for (long tick = 0; ; tick++) {
        long due = start + tick * period;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
        long elapsed = (System.nanoTime() - start) / 1_000_000_000L;
        if (elapsed >= nextSample) {
          for (String lane : lanes) {
            Table t = catalogs.get(lane).loadTable(ID);
            long[] files = files(t);
            out.printf(
                Locale.ROOT,
                "%s,%d,%d,%d,%d,%d%n",
                lane,
                elapsed,
                counts.get(lane)[0],
                counts.get(lane)[1],
                files[0],
                files[1]);
          }
          out.flush();
          nextSample += sampleSeconds;
        }
        if (elapsed >= seconds) {
          break;
        }
        // the same change to every lane: each lane's random stream sees the same rows in the same
        // order
        for (String lane : lanes) {
          change(catalogs.get(lane).loadTable(ID), randoms.get(lane), counts.get(lane));
        }
      }
    }
    for (String lane : lanes) {
      System.out.printf(
          Locale.ROOT,
          "RESULT lane=%s writer_commits=%d writer_retries=%d%n",
          lane,
          counts.get(lane)[0],
          counts.get(lane)[1]);
      catalogs.get(lane).close();
    }
  }

  private static void create(Path dir, List<String> lanes, Map<String, String> a) {
    int version = Integer.parseInt(a.getOrDefault("version", "2"));
    int partitions = Integer.parseInt(a.getOrDefault("partitions", "4"));
    int files = Integer.parseInt(a.getOrDefault("files", "30"));
    int rows = Integer.parseInt(a.getOrDefault("rows", "300"));
    for (String lane : lanes) {
      try (JdbcCatalog catalog = BenchTable.open(dir.resolve(lane))) {
        catalog.createNamespace(Namespace.of("db"));
        Table table = catalog.createTable(
            ID,
            SCHEMA,
            SPEC,
            Map.of(
                TableProperties.FORMAT_VERSION,
                String.valueOf(version),
                TableProperties.COMMIT_NUM_RETRIES,
                "20",
                TableProperties.COMMIT_MIN_RETRY_WAIT_MS,
                "20",
                "bench.partitions",
                String.valueOf(partitions)));
        Random random = new Random(1);
        long id = 0;
        for (int f = 0; f < files; f++) {
          var append = table.newAppend();
          List<Record> batch = new ArrayList<>();
          for (int p = 0; p < partitions; p++) {
            for (int r = 0; r < rows; r++) {
              batch.add(row(id++, p, "new", random));
            }
          }
          TableWrites.writeData(table, batch).forEach(append::appendFile);
          append.commit();
        }
      }
    }
    System.out.println("created " + lanes + " under " + dir);
  }

  private static Record row(long id, int day, String status, Random random) {
    Record r = GenericRecord.create(SCHEMA);
    r.setField("id", id);
    r.setField("day", day);
    r.setField("status", status);
    r.setField("amount", Math.round(random.nextDouble() * 100_000) / 100.0);
    r.setField("updated", LocalDateTime.of(2026, 1, 1, 0, 0).plusSeconds(id));
    return r;
  }

  /** One delete or update of a random live row of a random partition, retried until it lands. */
  private static void change(Table table, Random random, int[] counts) {
    int day = random.nextInt(partitions(table));
    boolean update = random.nextBoolean();
    double pick = random.nextDouble();
    for (int attempt = 0; attempt < 50; attempt++) {
      table.refresh();
      try {
        commit(table, day, update, pick, random);
        counts[0]++;
        return;
      } catch (CommitFailedException | ValidationException e) {
        counts[1]++;
      }
    }
    throw new IllegalStateException("writer starved: 50 attempts in a row failed");
  }

  private static int partitions(Table table) {
    return Integer.parseInt(table.properties().getOrDefault("bench.partitions", "4"));
  }

  private static void commit(Table table, int day, boolean update, double pick, Random random) {
    Snapshot base = table.currentSnapshot();
    Schema withPositions = new Schema(List.of(
        SCHEMA.findField("id"),
        SCHEMA.findField("day"),
        SCHEMA.findField("status"),
        SCHEMA.findField("amount"),
        SCHEMA.findField("updated"),
        MetadataColumns.FILE_PATH,
        MetadataColumns.ROW_POSITION));
    List<Record> live = new ArrayList<>();
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table)
        .useSnapshot(base.snapshotId())
        .where(Expressions.equal("day", day))
        .project(withPositions)
        .build()) {
      rows.forEach(r -> live.add(r.copy()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Record victim = live.get((int) (pick * live.size()));
    String file = victim.getField(MetadataColumns.FILE_PATH.name()).toString();
    long pos = (Long) victim.getField(MetadataColumns.ROW_POSITION.name());
    FileScanTask task = taskOf(table, base, file, day);
    TableWrites.commitRowChange(
        table,
        base,
        task,
        pos,
        update ? List.of(row((Long) victim.get(0), day, "updated", random)) : List.of());
  }

  private static FileScanTask taskOf(Table table, Snapshot base, String file, int day) {
    try (CloseableIterable<FileScanTask> tasks = table
        .newScan()
        .useSnapshot(base.snapshotId())
        .filter(Expressions.equal("day", day))
        .planFiles()) {
      for (FileScanTask t : tasks) {
        if (t.file().location().equals(file)) {
          return t;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalStateException("no scan task for " + file);
  }

  /** Live data files and the delete files attached to them. */
  private static long[] files(Table table) {
    long data = 0;
    java.util.Set<String> deletes = new java.util.HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask t : tasks) {
        data++;
        t.deletes().forEach(d -> deletes.add(d.location()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new long[] {data, deletes.size()};
  }
}
