package dev.resurfacer.layout;

import java.util.List;

/**
 * What {@code resurfacer advise} found for one table.
 *
 * @param scans scans of the table read from the reports (after {@code skippedLines} malformed or foreign lines)
 * @param simulated how many of them were simulated (an even subset when there are very many)
 * @param columns the filtered columns, most filtered first
 * @param current the table's files as they are, against the same queries
 * @param candidates every layout simulated, cheapest first
 * @param recommendation what to do, or null when nothing is worth doing ({@code reason} says why either way)
 * @param eras files scanned per query as measured by the reports, per layout era (oldest first)
 */
public record Advice(
    String table,
    int scans,
    int simulated,
    long skippedLines,
    long otherTables,
    long droppedByCollectors,
    int sampleRows,
    int sampleFiles,
    List<ColumnUse> columns,
    Candidate current,
    List<Candidate> candidates,
    Recommendation recommendation,
    String reason,
    List<Era> eras) {
  public Advice {
    columns = List.copyOf(columns);
    candidates = List.copyOf(candidates);
    eras = List.copyOf(eras);
  }

  /**
   * @param share of the scans, the fraction filtering on this column
   * @param kinds how: "eq 120, range 40"
   * @param scannedFraction of those scans, the mean fraction of the table's data files they read
   * @param projected how many scans read the column
   */
  public record ColumnUse(
      String column,
      int filtered,
      double share,
      String kinds,
      double scannedFraction,
      int projected) {}

  /** @param layout the row order; {@code targetFileSize} 0 for the current files */
  public record Candidate(
      String layout,
      String strategy,
      String orderBy,
      long targetFileSize,
      long files,
      double filesPerQuery,
      double bytesPerQuery,
      double cost) {}

  /**
   * @param gain the expected cut in cost (bytes read plus per-file open cost) against the current files, 0-1
   * @param filesReduction current files per query divided by the recommended layout's
   */
  public record Recommendation(
      String strategy,
      String orderBy,
      long targetFileSize,
      String layout,
      double expectedFilesPerQuery,
      double currentFilesPerQuery,
      double filesReduction,
      double gain) {}

  /** @param since the snapshot (or version) that began the era: the latest rewrite of the table's files before these scans */
  public record Era(
      long since, String sinceTime, int queries, double filesPerQuery, double bytesPerQuery) {}
}
