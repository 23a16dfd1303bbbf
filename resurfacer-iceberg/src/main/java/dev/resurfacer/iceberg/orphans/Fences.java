package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.SafetyRefusal;
import java.util.List;
import dev.resurfacer.storage.StoredFile;
import java.util.Map;

/** The checks that stop a run before anything is deleted; each says which fence and why. */
final class Fences {
  private Fences() {}

  /**
   * A table with snapshots always references at least one metadata.json, manifest list, manifest
   * and data file. An empty category means the walk failed somewhere (an unreadable manifest list,
   * a metadata format we misread), and the complement of an incomplete reachable set is live data.
   */
  static void requireEveryCategory(Map<Category, Long> referenced, boolean hasSnapshots) {
    if (!hasSnapshots) {
      return;
    }
    for (Category c : Category.values()) {
      if (c.requiredWithSnapshots && referenced.getOrDefault(c, 0L) == 0) {
        throw new SafetyRefusal("empty reference category: the table has snapshots but no " + c.label
            + " were found, so the reachable set cannot be trusted; nothing was deleted");
      }
    }
  }

  /**
   * A referenced file that existed before listing began and is absent from the listing means the
   * listing is partial (or names files differently), so "listed but unreferenced" means nothing.
   */
  static void requireCompleteListing(long missing, List<String> sample) {
    if (missing > 0) {
      throw new SafetyRefusal("partial listing: " + missing + " referenced file(s) were not found when storage was listed"
          + " (e.g. " + String.join(", ", sample) + "); nothing was deleted");
    }
  }

  /** Same path, different scheme or authority: the two sides name storage differently (Spark's prefix-mismatch ERROR mode). */
  static void requireNoPrefixMismatch(List<String> mismatches) {
    if (!mismatches.isEmpty()) {
      throw new SafetyRefusal("prefix mismatch: " + String.join("; ", mismatches)
          + " — the scheme or authority differs and is not a known equivalent; nothing was deleted");
    }
  }

  static SafetyRefusal listedOutsideRoot(String location, StoredFile root) {
    return new SafetyRefusal("prefix mismatch: listing " + root + " returned " + location
        + ", whose scheme, authority or path is not under it; nothing was deleted");
  }
}
