package dev.resurfacer.iceberg.orphans;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.List;
import java.util.Map;

/**
 * What one remove-orphans run found and did. {@code deleted} is true when the run acted ({@code --yes});
 * in a preview nothing is {@link Removed removed} and {@code orphans} lists what {@code --yes} would remove
 * (the first {@code shown} of them). With quarantine the candidates are moved, not deleted:
 * {@link Removed#quarantined()} counts them and {@link Removed#quarantineRun()} names the run to restore.
 * {@code listing} is null when storage was listed, else the listing read instead.
 *
 * <p>The JSON keeps one flat object (the nested values are unwrapped, their prefixes spelled here), in
 * this order: {@code --output json} readers and the golden files depend on it.
 */
public record OrphanReport(
    String table,
    boolean deleted,
    @JsonUnwrapped Guard guard,
    @JsonUnwrapped Census census,
    @JsonUnwrapped Removed removed,
    @JsonUnwrapped References references,
    @JsonUnwrapped Fenced fenced,
    List<OrphanFile> orphans,
    boolean orphansTruncated,
    List<String> warnings,
    Listing listing) {

  /** A number of files and their size. */
  public record Files(long files, long bytes) {
    public static final Files NONE = new Files(0, 0);
  }

  /** Where the run looked and the age guard: the scope's roots, the guard as given and the cutoff it gives. */
  public record Guard(List<String> scope, String olderThan, long cutoffMillis) {}

  /** What the listing held, by what became of each file: referenced, too young, or orphaned. */
  public record Census(
      @JsonUnwrapped(prefix = "listed_") Files listed,
      @JsonUnwrapped(prefix = "kept_reachable_") Files keptReachable,
      @JsonUnwrapped(prefix = "kept_too_young_") Files keptTooYoung,
      @JsonUnwrapped(prefix = "orphan_") Files orphans) {}

  /**
   * What an acting run did: deleted (or, with quarantine, moved) orphans, the deletes that failed, and the
   * quarantine runs past their retention it purged. All zero (and no run) in a preview.
   */
  public record Removed(
      @JsonUnwrapped(prefix = "deleted_") Files deleted,
      long failedDeletes,
      String quarantineRun,
      @JsonUnwrapped(prefix = "quarantined_") Files quarantined,
      @JsonUnwrapped(prefix = "purged_quarantine_") Files purgedQuarantine) {
    public static final Removed NOTHING = new Removed(Files.NONE, 0, null, Files.NONE, Files.NONE);
  }

  /** The referenced files, by category label, and how many lie in the scope and outside it. */
  public record References(
      Map<String, Long> referenced, long referencedInScope, long referencedOutsideScope) {}

  /** What the fences looked at beside the listing: the other tables checked, and entries never listed. */
  public record Fenced(int otherTablesChecked, long linksSkipped, long protectedSkipped) {}

  /** A listing read instead of listing storage: where from, when it was taken, how many of its entries lie outside the scope. */
  public record Listing(String source, long takenAtMillis, long entriesOutsideScope) {}

  /** A file that nothing references and is older than the age guard. */
  public record OrphanFile(String location, long sizeBytes, long ageMillis) {}
}
