package dev.resurfacer.delta.table;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.storage.StoredFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The walk of an {@code s3://bucket/prefix} discover root, with the rules of the local walk: a
 * "directory" is a common prefix, {@code _} and {@code .} names are skipped, a prefix whose
 * {@code _delta_log/} holds a commit or checkpoint is a table and nothing below it is looked at.
 *
 * <p>Level by level with delimiter {@code /}, never one flat listing of the root: a flat listing
 * costs one request per 1,000 objects, data files of every table included, while this walk costs one
 * request per directory that is not a table (a namespace) and one per candidate table (a probe of its
 * {@code _delta_log/}, which ends at the first log entry). A table's own prefix is never listed, so
 * its data files are never paged through. Any failed or partial page fails the whole listing.
 */
final class S3Discovery {
  private S3Discovery() {}

  private enum Log {
    NONE,
    WITHOUT_ENTRY,
    TABLE
  }

  /** Calls {@code table} with each table's path segments below the root and its location. */
  static void walk(
      CatalogConfig catalog, String root, S3Objects s3, BiConsumer<List<String>, String> table) {
    StoredFile rootFile = StoredFile.parse(root);
    if (rootFile.authority().isEmpty()) {
      throw new UsageException("catalogs." + catalog.name() + ".discover: " + root
          + " names no bucket (s3://bucket/prefix)");
    }
    String bucket = rootFile.authority();
    String rootKey = rootFile.path().equals("/") ? "" : rootFile.path().substring(1) + "/";
    try {
      if (log(s3, bucket, rootKey) != Log.NONE) {
        throw new UsageException(DeltaDiscovery.alreadyATable(catalog, root));
      }
      S3Objects.Level top = s3.level(bucket, rootKey, key -> false);
      if (top.prefixes().isEmpty() && !top.anyObject()) {
        throw new UsageException(
            "catalogs." + catalog.name() + ".discover: " + root + " holds no objects");
      }
      walk(s3, bucket, rootKey, top, new ArrayList<>(), table);
    } catch (IOException e) {
      // the whole listing fails: a table left out would silently leave maintenance
      throw new UsageException("catalogs." + catalog.name() + ".discover: " + e.getMessage());
    }
  }

  private static void walk(
      S3Objects s3,
      String bucket,
      String key,
      S3Objects.Level level,
      List<String> relative,
      BiConsumer<List<String>, String> table)
      throws IOException {
    for (String child : level.prefixes()) {
      String name = child.substring(key.length(), child.length() - 1);
      // "" is a doubled slash: no directory a Delta table could be addressed by
      if (name.isEmpty() || name.startsWith("_") || name.startsWith(".")) {
        continue;
      }
      List<String> below = new ArrayList<>(relative);
      below.add(name);
      switch (log(s3, bucket, child)) {
        case TABLE -> table.accept(List.copyOf(below), location(bucket, child));
        case WITHOUT_ENTRY -> {} // a _delta_log without a commit: not a table, and its directories
        // hold none
        case NONE -> walk(s3, bucket, child, s3.level(bucket, child, k -> false), below, table);
      }
    }
  }

  private static Log log(S3Objects s3, String bucket, String dirKey) throws IOException {
    String logKey = dirKey + "_delta_log/";
    S3Objects.Level level = s3.level(
        bucket,
        logKey,
        k -> DeltaDiscovery.LOG_ENTRY.matcher(k.substring(logKey.length())).matches());
    if (!level.anyObject() && level.prefixes().isEmpty()) {
      return Log.NONE;
    }
    return level.stopped() ? Log.TABLE : Log.WITHOUT_ENTRY;
  }

  /** The table's location; a {@code %} in a key is escaped so that {@link StoredFile#parse} reads the key back as it is. */
  private static String location(String bucket, String prefixKey) {
    return "s3://" + bucket + "/"
        + prefixKey.substring(0, prefixKey.length() - 1).replace("%", "%25");
  }
}
