package dev.resurfacer.iceberg.retention;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.health.HealthInspector;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * Sets the metadata.json retention properties a policy declares and reports metadata files that
 * are already stranded. {@code write.metadata.previous-versions-max} alone only trims the log: with
 * {@code write.metadata.delete-after-commit.enabled} off, the trimmed files stay on disk with nothing
 * referencing them. Those are reported here and swept by remove-orphans.
 *
 * <pre>
 * MetadataRetention.Plan plan = MetadataRetention.plan(table, 20, true); // changes nothing
 * MetadataRetention.Result r = MetadataRetention.execute(plan);          // sets the properties
 * </pre>
 */
public final class MetadataRetention {
  private MetadataRetention() {}

  /**
   * @param propertiesToSet the properties that differ from what the table has
   * @param metadataInLog metadata.json files the log references (previous versions plus current)
   * @param strandedFiles metadata.json files on disk the log no longer references
   */
  public record Result(
      String table,
      boolean committed,
      Map<String, String> propertiesToSet,
      int metadataInLog,
      int logEntriesTrimmedByNextCommit,
      int strandedFiles,
      long strandedBytes) {}

  /**
   * What {@link #execute} would do and what it found.
   *
   * @param propertiesToSet the properties that differ from what the table has
   */
  public record Plan(
      Table table,
      Map<String, String> propertiesToSet,
      int metadataInLog,
      int logEntriesTrimmedByNextCommit,
      int strandedFiles,
      long strandedBytes) {
    /** The plan as a result that committed nothing. */
    public Result preview() {
      return result(false);
    }

    Result result(boolean committed) {
      return new Result(
          table.name(),
          committed,
          propertiesToSet,
          metadataInLog,
          logEntriesTrimmedByNextCommit,
          strandedFiles,
          strandedBytes);
    }
  }

  /** Reads the table and its metadata directory, changes nothing. */
  public static Plan plan(Table table, int keepVersions, boolean deleteAfterCommit) {
    if (keepVersions < 1) {
      throw new UsageException("--keep must be at least 1 (got " + keepVersions + ")");
    }
    table.refresh();
    TableMetadata meta = ((HasTableOperations) table).operations().current();
    Map<String, String> wanted = new LinkedHashMap<>();
    wanted.put(
        TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, Boolean.toString(deleteAfterCommit));
    wanted.put(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, Integer.toString(keepVersions));
    Map<String, String> toSet = new LinkedHashMap<>();
    wanted.forEach((k, v) -> {
      if (!v.equals(table.properties().get(k))) {
        toSet.put(k, v);
      }
    });
    Set<String> inLog = new HashSet<>();
    meta.previousFiles().forEach(e -> inLog.add(normalize(e.file())));
    inLog.add(normalize(meta.metadataFileLocation()));
    int stranded = 0;
    long strandedBytes = 0;
    if (table.io() instanceof SupportsPrefixOperations io) {
      for (FileInfo f : io.listPrefix(HealthInspector.metadataLocation(table))) {
        if (f.location().endsWith(".metadata.json") && !inLog.contains(normalize(f.location()))) {
          stranded++;
          strandedBytes += f.size();
        }
      }
    }
    int trimmed = Math.max(0, meta.previousFiles().size() + 1 - keepVersions);
    return new Plan(table, toSet, inLog.size(), trimmed, stranded, strandedBytes);
  }

  /** Sets the plan's properties in one commit; nothing to set commits nothing. */
  public static Result execute(Plan plan) {
    if (plan.propertiesToSet().isEmpty()) {
      return plan.preview();
    }
    var update = plan.table().updateProperties();
    plan.propertiesToSet().forEach(update::set);
    update.commit();
    return plan.result(true);
  }

  private static String normalize(String location) {
    return location.replaceFirst("^file:/+", "/");
  }
}
