package dev.resurfacer.bench;

import dev.resurfacer.iceberg.expire.ExpireOptions;
import dev.resurfacer.iceberg.expire.ExpireResult;
import dev.resurfacer.iceberg.expire.SnapshotExpiry;
import dev.resurfacer.iceberg.orphans.OrphanRemoval;
import dev.resurfacer.iceberg.orphans.OrphanReport;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * Our expire and orphan removal on a scenario's live table (the caller restores it first; see
 * {@code bench/run-maintenance.sh}). Prints a {@code RESULT} line with the process's wall time and
 * peak RSS (VmHWM).
 *
 * <pre>OurMaintenance --scenario DIR --op expire|orphans [--duckdb-memory 256MB]</pre>
 * expire: {@code SnapshotExpiry.execute} with older-than 0 and retain-last 1 (the anchor's run);
 * orphans: {@code OrphanRemoval.execute()} with the default 3-day age guard.
 */
public final class OurMaintenance {
  private OurMaintenance() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = Args.parse(args);
    Path scenario =
        Path.of(a.getOrDefault("scenario", "bench/work/snap")).toAbsolutePath().normalize();
    String op = a.getOrDefault("op", "expire");
    long t0 = System.nanoTime();
    String summary;
    String result;
    try (JdbcCatalog catalog = BenchTable.open(BenchTable.live(scenario))) {
      TableIdentifier id = TableIdentifier.parse(BenchTable.TABLE);
      Table table = catalog.loadTable(id);
      long openMs = (System.nanoTime() - t0) / 1_000_000;
      long t1 = System.nanoTime();
      if (op.equals("expire")) {
        int before = 0;
        for (var s : table.snapshots()) {
          before++;
        }
        ExpireResult r = SnapshotExpiry.execute(SnapshotExpiry.plan(
            BenchTable.CATALOG + "." + BenchTable.TABLE,
            table,
            new ExpireOptions(Duration.ZERO, 1, List.of(), false)));
        long opMs = (System.nanoTime() - t1) / 1_000_000;
        StringBuilder cats = new StringBuilder();
        r.byCategory().forEach((c, t) -> cats.append(' ').append(c).append('=').append(t.files()));
        summary = String.format(
            Locale.ROOT,
            "expire: %d snapshots before, %d expired, %d files (%s) deleted:%s, %d not deleted; open %.1f s, expire %.1f s",
            before,
            r.snapshots().size(),
            r.files(),
            BenchTable.mb(r.bytes()),
            cats,
            r.notDeleted().size(),
            openMs / 1000.0,
            opMs / 1000.0);
        result = String.format(
            Locale.ROOT,
            "op=expire ok=%s snapshots_before=%d expired=%d deleted_files=%d deleted_bytes=%d op_ms=%d",
            r.committed(),
            before,
            r.snapshots().size(),
            r.files(),
            r.bytes(),
            opMs);
      } else if (op.equals("orphans")) {
        OrphanRemoval removal = OrphanRemoval.of(catalog, id, table).show(5);
        if (a.containsKey("duckdb-memory")) {
          removal = removal.memoryLimit(a.get("duckdb-memory"));
        }
        OrphanReport r = removal.execute();
        long opMs = (System.nanoTime() - t1) / 1_000_000;
        summary = String.format(
            Locale.ROOT,
            "remove-orphans: listed %,d files, kept %,d reachable + %,d too young, %,d orphans, deleted %,d (%d failed); "
                + "referenced %s; open %.1f s, remove-orphans %.1f s",
            r.census().listed().files(),
            r.census().keptReachable().files(),
            r.census().keptTooYoung().files(),
            r.census().orphans().files(),
            r.removed().deleted().files(),
            r.removed().failedDeletes(),
            r.references().referenced(),
            openMs / 1000.0,
            opMs / 1000.0);
        result = String.format(
            Locale.ROOT,
            "op=orphans ok=%s listed=%d orphans=%d deleted=%d failed=%d op_ms=%d",
            r.removed().failedDeletes() == 0
                && r.removed().deleted().files() == r.census().orphans().files(),
            r.census().listed().files(),
            r.census().orphans().files(),
            r.removed().deleted().files(),
            r.removed().failedDeletes(),
            opMs);
      } else {
        throw new IllegalArgumentException("--op expire|orphans");
      }
    }
    long hwm = BenchTable.procStatus("VmHWM");
    System.out.println(summary
        + String.format(
            Locale.ROOT,
            "; max heap %s, peak RSS %s",
            BenchTable.mb(Runtime.getRuntime().maxMemory()),
            BenchTable.mb(hwm)));
    System.out.printf(
        Locale.ROOT,
        "RESULT engine=resurfacer %s process_ms=%d vmhwm=%d max_heap=%d%n",
        result,
        ManagementFactory.getRuntimeMXBean().getUptime(),
        hwm,
        Runtime.getRuntime().maxMemory());
  }
}
