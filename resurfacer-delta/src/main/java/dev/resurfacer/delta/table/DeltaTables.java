package dev.resurfacer.delta.table;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.storage.StoredFile;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;

/** Finds and opens Delta tables: by a name a {@code type: delta} catalog maps, or by location. */
public final class DeltaTables {
  private DeltaTables() {}

  /**
   * The Delta table {@code target} names, or empty when it names none (then it is an Iceberg
   * identifier). A configured name wins, then a name found under a catalog's {@code discover:} roots; then anything written as a location (a slash, a scheme);
   * then a bare name when a directory of that name with a {@code _delta_log} exists here.
   */
  public static Optional<DeltaTable> find(String target, ResurfacerConfig config, Path workingDir) {
    DeltaDiscovery.refuseOverlaps(config.catalogs().values(), workingDir);
    Optional<String> configured = config.deltaLocation(target);
    if (configured.isEmpty() && !looksLikeLocation(target)) {
      configured = DeltaDiscovery.location(target, config, workingDir);
    }
    if (configured.isPresent()) {
      return Optional.of(
          open(target, configured.get(), workingDir, s3Settings(config, configured.get())));
    }
    if (!looksLikeLocation(target)
        && !Files.isDirectory(workingDir.resolve(target).resolve("_delta_log"))) {
      return Optional.empty();
    }
    return Optional.of(open(target, target, workingDir, s3Settings(config, target)));
  }

  /**
   * The storage settings (S3, {@code adls.*} for Azure, {@code gcs.*} for Cloud Storage) for a location: those of the delta catalog that names it or has it under an
   * {@code s3://} discover root, else of the only
   * delta catalog, else the SDK's defaults (environment, profile, instance role).
   */
  public static S3Settings s3Settings(ResurfacerConfig config, String location) {
    List<CatalogConfig> deltas =
        config.catalogs().values().stream().filter(CatalogConfig::isDelta).toList();
    StoredFile wanted = isObjectStore(location) ? StoredFile.parse(location) : null;
    // a catalog that names the location wins over one whose discover root merely contains it
    for (CatalogConfig c : deltas) {
      if (wanted != null
          && c.tables().values().stream()
              .filter(DeltaTables::isObjectStore)
              .map(StoredFile::parse)
              .anyMatch(wanted::equals)) {
        return settings(c);
      }
    }
    for (CatalogConfig c : deltas) {
      // a table under an S3 discover root is the catalog's as much as a named one: maintain runs it
      // with these settings too;
      // a place the walk skips (a `_` or `.` segment) is not one of its tables, so it never gets
      // the single-writer promise
      for (StoredFile root :
          c.discover().stream().filter(DeltaTables::isS3).map(StoredFile::parse).toList()) {
        if (wanted != null && root.contains(wanted) && !root.equals(wanted)) {
          String below = wanted.path().substring(root.path().length());
          boolean skipped = java.util.Arrays.stream(below.split("/"))
              .anyMatch(s -> s.startsWith("_") || s.startsWith("."));
          return skipped ? settings(c).withoutSingleWriter() : settings(c);
        }
      }
    }
    // a location the catalog does not name gets its connection but never its single-writer promise:
    // that promise is about the tables the user declared, not about any other writer's table
    return deltas.size() == 1
        ? settings(deltas.get(0)).withoutSingleWriter()
        : S3Settings.defaults();
  }

  public static S3Settings settings(CatalogConfig catalog) {
    return S3Settings.of(catalog.properties(), "catalogs." + catalog.name() + ".properties");
  }

  static boolean isS3(String location) {
    String l = location.toLowerCase(java.util.Locale.ROOT);
    return l.startsWith("s3://") || l.startsWith("s3a://") || l.startsWith("s3n://");
  }

  /** {@code abfss://}, {@code abfs://}, {@code wasbs://}, {@code wasb://}: one Azure container, whichever is written. */
  static boolean isAzure(String location) {
    String l = location.toLowerCase(java.util.Locale.ROOT);
    return l.startsWith("abfss://")
        || l.startsWith("abfs://")
        || l.startsWith("wasbs://")
        || l.startsWith("wasb://");
  }

  /** {@code gs://}: a Cloud Storage bucket ({@code gcs://} is not a scheme Iceberg or Hadoop read, and is refused as a local path would be). */
  static boolean isGcs(String location) {
    return location.toLowerCase(java.util.Locale.ROOT).startsWith("gs://");
  }

  /** A table in an object store rather than on the local disk. */
  static boolean isObjectStore(String location) {
    return isS3(location) || isAzure(location) || isGcs(location);
  }

  /** A location rather than a {@code namespace.table} identifier. */
  public static boolean looksLikeLocation(String target) {
    return target.contains("/")
        || target.contains("\\")
        || target.contains("://")
        || target.startsWith("file:")
        || target.equals(".")
        || target.equals("..");
  }

  public static DeltaTable open(String name, String location, Path workingDir) {
    return open(name, location, workingDir, S3Settings.defaults());
  }

  public static DeltaTable open(String name, String location, Path workingDir, S3Settings s3) {
    if (isObjectStore(location)) {
      ObjectStorage storage = ObjectStorage.open(location, s3);
      try {
        if (storage.listLog().isEmpty()) {
          throw new UsageException(location + " is not a Delta table (no _delta_log entries)");
        }
      } catch (IOException e) {
        storage.close();
        throw new UsageException("cannot list " + location + ": " + e.getMessage());
      } catch (RuntimeException e) {
        storage.close();
        throw e;
      }
      return new DeltaTable(name, storage);
    }
    Path root = localPath(location, workingDir);
    if (!Files.isDirectory(root.resolve("_delta_log"))) {
      throw new UsageException(location + " is not a Delta table (no _delta_log directory)");
    }
    Path real;
    try {
      real = root.toRealPath();
    } catch (IOException e) {
      throw new UsageException("cannot resolve " + location + ": " + e.getMessage());
    }
    return new DeltaTable(name, LocalStorage.open(root, real));
  }

  static Path localPath(String location, Path workingDir) {
    if (location.startsWith("file:")) {
      return Path.of(URI.create(location)).toAbsolutePath().normalize();
    }
    if (location.contains("://")) {
      String scheme = location.substring(0, location.indexOf("://"));
      throw new UsageException(
          "Delta tables on " + scheme + ":// storage are not supported (local paths, file:, s3://, "
              + "abfss:// (abfs, wasbs, wasb) and gs:// URIs): " + location);
    }
    return workingDir.resolve(location).toAbsolutePath().normalize();
  }

  /** Kernel's Parquet writer rolls to a new file at about this many bytes. */
  public static final String TARGET_FILE_SIZE =
      "delta.kernel.default.parquet.writer.targetMaxFileSize";

  /**
   * Local file system without Hadoop's checksum side files: a {@code .crc} beside every file Kernel
   * writes would be one more file each other tool has to recognise.
   */
  public static Configuration hadoopConf() {
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
    conf.setBoolean("fs.file.impl.disable.cache", true);
    return conf;
  }
}
