package dev.resurfacer.bench;

import dev.resurfacer.iceberg.catalog.Catalogs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;

/**
 * The benchmark's table and where it lives. One scenario is a directory under the work dir:
 * {@code live/} (catalog.db + warehouse/, what runs mutate) and {@code pristine/} (the copy every
 * run restores from). Iceberg metadata holds absolute paths, so a restore copies pristine back to
 * exactly the same {@code live/} location.
 */
final class BenchTable {
  static final String CATALOG = "bench";
  static final String TABLE = "db.events";

  /** The reference anchor's flat 10-column events table. */
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "user_id", Types.LongType.get()),
      Types.NestedField.optional(3, "event", Types.StringType.get()),
      Types.NestedField.optional(4, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(5, "amount", Types.DecimalType.of(12, 2)),
      Types.NestedField.optional(6, "country", Types.StringType.get()),
      Types.NestedField.optional(7, "device", Types.StringType.get()),
      Types.NestedField.optional(8, "session_id", Types.UUIDType.get()),
      Types.NestedField.optional(9, "url", Types.StringType.get()),
      Types.NestedField.optional(10, "score", Types.DoubleType.get()));

  static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).day("ts").build();

  private BenchTable() {}

  static Path live(Path scenario) {
    return scenario.resolve("live");
  }

  static Path pristine(Path scenario) {
    return scenario.resolve("pristine");
  }

  static String uri(Path dir) {
    return "jdbc:sqlite:" + dir.toAbsolutePath().normalize().resolve("catalog.db");
  }

  static String warehouse(Path dir) {
    return dir.toAbsolutePath().normalize().resolve("warehouse").toString();
  }

  /** Iceberg's own JdbcCatalog on SQLite, named {@value #CATALOG} (JDBC catalogs scope tables by name). */
  static JdbcCatalog open(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    JdbcCatalog catalog = new JdbcCatalog();
    catalog.setConf(Catalogs.localHadoopConf());
    catalog.initialize(
        CATALOG,
        Map.of(
            CatalogProperties.URI, uri(dir),
            CatalogProperties.WAREHOUSE_LOCATION, warehouse(dir)));
    return catalog;
  }

  /** Replaces {@code live/} with a copy of {@code pristine/}; returns the milliseconds it took. */
  static long restore(Path scenario) {
    long t0 = System.nanoTime();
    Path pristine = pristine(scenario);
    if (!Files.isRegularFile(pristine.resolve("catalog.db"))) {
      throw new IllegalStateException(
          "no pristine copy under " + pristine + ": run the generator first");
    }
    deleteTree(live(scenario));
    copyTree(pristine, live(scenario));
    return (System.nanoTime() - t0) / 1_000_000;
  }

  static void copyTree(Path from, Path to) {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static long treeBytes(Path dir, String mustContain) {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      return paths
          .filter(p -> mustContain == null || p.toString().contains(mustContain))
          .filter(Files::isRegularFile)
          .mapToLong(p -> p.toFile().length())
          .sum();
    } catch (IOException | UncheckedIOException e) {
      return 0; // files come and go while a run is in flight
    }
  }

  /** Linux /proc/self/status field in bytes (VmHWM = peak RSS, VmRSS = current); -1 elsewhere. */
  static long procStatus(String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith(field + ":")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException ignored) {
      // not Linux
    }
    return -1;
  }

  static String mb(long bytes) {
    return bytes < 0 ? "n/a" : String.format(java.util.Locale.ROOT, "%.1f MB", bytes / 1048576.0);
  }
}
