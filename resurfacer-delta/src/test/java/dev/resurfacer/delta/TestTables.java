package dev.resurfacer.delta;

import static dev.resurfacer.delta.DeltaSpark.sql;
import static dev.resurfacer.delta.DeltaSpark.table;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;

/** Delta tables written by delta-spark, shaped like the ones users bring. */
public final class TestTables {
  private static Path shared;

  private TestTables() {}

  /**
   * One {@link #partitionedWithDeletes} table per test run, written once (delta-spark is slow to
   * write); tests work on {@link #copy copies} of it.
   */
  public static synchronized Path sharedPartitionedWithDeletes() throws IOException {
    if (shared == null) {
      Path dir = Files.createTempDirectory("resurfacer-delta-shared");
      Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir)));
      shared = partitionedWithDeletes(dir.resolve("events"));
    }
    return shared;
  }

  /**
   * Partitioned by {@code part}, deletion vectors on, six small appends, a checkpoint every five commits, then a DELETE and an UPDATE
   * (deletion vectors) and a DELETE of a whole partition (removes), so the log holds adds, removes
   * and deletion vectors.
   */
  public static Path partitionedWithDeletes(Path dir) {
    partitionedWithDeletes(dir.toAbsolutePath().toString());
    return dir;
  }

  /** As {@link #partitionedWithDeletes(Path)} at a location delta-spark reaches, such as {@code s3a://bucket/path}. */
  public static void partitionedWithDeletes(String dir) {
    sql(
        "CREATE TABLE " + table(dir)
            + " (id BIGINT, part STRING, v STRING) USING delta PARTITIONED BY (part)"
            + " TBLPROPERTIES ('delta.enableDeletionVectors' = 'true', 'delta.checkpointInterval' = '5')");
    for (int i = 0; i < 6; i++) {
      sql("INSERT INTO " + table(dir)
          + " SELECT id, CASE WHEN id % 3 = 0 THEN 'a b' WHEN id % 3 = 1 THEN 'x%y' ELSE 'c' END,"
          + " concat('v', id) FROM range(" + (i * 100) + ", " + (i * 100 + 100) + ")");
    }
    sql("DELETE FROM " + table(dir) + " WHERE id % 7 = 0");
    sql("UPDATE " + table(dir) + " SET v = 'updated' WHERE id % 11 = 0");
    sql("DELETE FROM " + table(dir) + " WHERE part = 'c'");
  }

  /** Every regular file under {@code dir} outside {@code _delta_log} gets a modification time {@code age} ago. */
  public static void ageData(Path dir, Duration age) throws IOException {
    FileTime t = FileTime.from(Instant.now().minus(age));
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.filter(Files::isRegularFile)
          .filter(p -> !p.toString().contains("_delta_log"))
          .toList()) {
        Files.setLastModifiedTime(p, t);
      }
    }
  }

  public static Path write(Path file, Duration age) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, "x");
    Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(age)));
    return file;
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException ignored) {
      // a leftover temp directory is all that is lost
    }
  }

  /** A copy of a table directory, modification times kept (Delta's relative paths make it the same table). */
  public static Path copy(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : s.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
    return to;
  }
}
