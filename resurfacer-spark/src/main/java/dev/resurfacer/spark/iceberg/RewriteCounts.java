package dev.resurfacer.spark.iceberg;

import dev.resurfacer.units.ByteSizes;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a rewrite procedure reported against what our preview planned.
 *
 * @param plannedFiles files the preview planned to rewrite
 * @param plannedBytes their bytes
 * @param rewrittenFiles files the procedure rewrote
 * @param rewrittenBytes their bytes
 * @param addedFiles files it wrote in their place
 */
record RewriteCounts(
    long plannedFiles,
    long plannedBytes,
    long rewrittenFiles,
    long rewrittenBytes,
    long addedFiles) {

  /**
   * @param row the procedure's result row
   * @param kind what its columns call the files rewritten: {@code data} or {@code delete}
   */
  static RewriteCounts of(
      long plannedFiles, long plannedBytes, Map<String, Object> row, String kind) {
    return new RewriteCounts(
        plannedFiles,
        plannedBytes,
        SparkIceberg.asLong(row.get("rewritten_" + kind + "_files_count")),
        SparkIceberg.asLong(row.get("rewritten_bytes_count")),
        SparkIceberg.asLong(row.get("added_" + kind + "_files_count")));
  }

  /** The step's metrics, these first; a step adds its own after them. */
  Map<String, Long> metrics() {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("planned_files", plannedFiles);
    m.put("planned_bytes", plannedBytes);
    m.put("rewritten_files", rewrittenFiles);
    m.put("rewritten_bytes", rewrittenBytes);
    m.put("added_files", addedFiles);
    return m;
  }

  /** {@code spark rewrote <n> <files> (<bytes>) into <added>}, naming the files rewritten as {@code files}. */
  String rewrote(String files) {
    return "spark rewrote " + rewrittenFiles + " " + files + " (" + ByteSizes.format(rewrittenBytes)
        + ") into " + addedFiles;
  }

  /** Empty when the procedure rewrote what the preview planned, else what the preview planned. */
  String drift() {
    return rewrittenFiles == plannedFiles && rewrittenBytes == plannedBytes
        ? ""
        : "; the preview planned " + plannedFiles + " file(s) (" + ByteSizes.format(plannedBytes)
            + ")";
  }
}
