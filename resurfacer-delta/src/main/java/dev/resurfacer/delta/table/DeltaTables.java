package dev.resurfacer.delta.table;

import dev.resurfacer.UsageException;
import dev.resurfacer.config.ResurfacerConfig;
import io.delta.kernel.defaults.engine.DefaultEngine;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;

/** Finds and opens Delta tables: by a name a {@code type: delta} catalog maps, or by location. */
public final class DeltaTables {
  private DeltaTables() {}

  /**
   * The Delta table {@code target} names, or empty when it names none (then it is an Iceberg
   * identifier). A configured name wins; then anything written as a location (a slash, a scheme);
   * then a bare name when a directory of that name with a {@code _delta_log} exists here.
   */
  public static Optional<DeltaTable> find(String target, ResurfacerConfig config, Path workingDir) {
    Optional<String> configured = config.deltaLocation(target);
    if (configured.isPresent()) {
      return Optional.of(open(target, configured.get(), workingDir));
    }
    if (!looksLikeLocation(target) && !Files.isDirectory(workingDir.resolve(target).resolve("_delta_log"))) {
      return Optional.empty();
    }
    return Optional.of(open(target, target, workingDir));
  }

  /** A location rather than a {@code namespace.table} identifier. */
  public static boolean looksLikeLocation(String target) {
    return target.contains("/") || target.contains("\\") || target.contains("://") || target.startsWith("file:")
        || target.equals(".") || target.equals("..");
  }

  public static DeltaTable open(String name, String location, Path workingDir) {
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
    return new DeltaTable(name, root, real, DefaultEngine.create(hadoopConf()));
  }

  static Path localPath(String location, Path workingDir) {
    if (location.startsWith("file:")) {
      return Path.of(URI.create(location)).toAbsolutePath().normalize();
    }
    if (location.contains("://")) {
      String scheme = location.substring(0, location.indexOf("://"));
      throw new UsageException("Delta tables on " + scheme + ":// storage are not supported on this build (local paths and file: URIs only): "
          + location);
    }
    return workingDir.resolve(location).toAbsolutePath().normalize();
  }

  /**
   * Local file system without Hadoop's checksum side files: a {@code .crc} beside every file Kernel
   * writes would be one more file each other tool has to recognise.
   */
  /** An engine whose Parquet writer rolls to a new file at about {@code targetFileSize} bytes. */
  public static io.delta.kernel.engine.Engine writingEngine(long targetFileSize) {
    Configuration conf = hadoopConf();
    conf.setLong("delta.kernel.default.parquet.writer.targetMaxFileSize", targetFileSize);
    return DefaultEngine.create(conf);
  }

  public static Configuration hadoopConf() {
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
    conf.setBoolean("fs.file.impl.disable.cache", true);
    return conf;
  }
}
