package dev.resurfacer.bench;

import dev.resurfacer.iceberg.compact.BenchBreakdown;
import dev.resurfacer.iceberg.compact.CompactionOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * Times one group's steps separately (no commit): {@code Breakdown --scenario DIR [--group 0] [--concurrency 1]}.
 * Uses the live/ copy as it is (restore first if a run changed it).
 */
public final class Breakdown {
  private Breakdown() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = Args.parse(args);
    Path scenario = Path.of(a.getOrDefault("scenario", "bench/work/events"))
        .toAbsolutePath()
        .normalize();
    if (Boolean.parseBoolean(a.getOrDefault("restore", "true"))) {
      BenchTable.restore(scenario);
    }
    Path scratch = scenario.resolve("scratch");
    Files.createDirectories(scratch);
    CompactionOptions options = CompactionOptions.defaults().withScratchDir(scratch);
    try (JdbcCatalog catalog = BenchTable.open(BenchTable.live(scenario))) {
      BenchBreakdown.run(
          catalog.loadTable(TableIdentifier.parse(BenchTable.TABLE)),
          options,
          Integer.parseInt(a.getOrDefault("group", "0")),
          Integer.parseInt(a.getOrDefault("concurrency", "1")));
    }
  }
}
