package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.iceberg.metadata.MetadataWalker;
import dev.resurfacer.storage.StoredFile;
import dev.resurfacer.storage.TableMarkers;
import dev.resurfacer.units.Durations;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;

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
        throw new SafetyRefusal("empty reference category: the table has snapshots but no "
            + c.label + " were found, so the reachable set cannot be trusted; nothing was deleted");
      }
    }
  }

  /**
   * A referenced file that existed before listing began and is absent from the listing means the
   * listing is partial (or names files differently), so "listed but unreferenced" means nothing.
   */
  static void requireCompleteListing(long missing, List<String> sample) {
    if (missing > 0) {
      throw new SafetyRefusal("partial listing: " + missing
          + " referenced file(s) were not found when storage was listed" + " (e.g. "
          + String.join(", ", sample) + "); nothing was deleted");
    }
  }

  /** Same path, different scheme or authority: the two sides name storage differently (Spark's prefix-mismatch ERROR mode). */
  static void requireNoPrefixMismatch(List<String> mismatches) {
    if (!mismatches.isEmpty()) {
      throw new SafetyRefusal(
          "prefix mismatch: " + String.join("; ", mismatches)
              + " — the scheme or authority differs and is not a known equivalent; nothing was deleted");
    }
  }

  static SafetyRefusal listedOutsideRoot(String location, StoredFile root) {
    return new SafetyRefusal("prefix mismatch: listing " + root + " returned " + location
        + ", whose scheme, authority or path is not under it; nothing was deleted");
  }

  /**
   * A listing describes storage as it was when it was taken, so the age guard has to reach back past
   * that moment: with a guard shorter than the listing's age, a file a writer had just written when
   * the listing was taken would be old enough by now and unreferenced still.
   */
  static void requireFreshEnough(Inventory inventory, long now, Duration olderThan) {
    long age = now - inventory.takenAtMillis();
    if (inventory.takenAtMillis() <= 0) {
      throw new SafetyRefusal(
          "listing " + inventory.source() + " does not say when it was taken; nothing was deleted");
    }
    if (age < -Duration.ofMinutes(5).toMillis()) {
      throw new SafetyRefusal("listing " + inventory.source() + " says it was taken at "
          + java.time.Instant.ofEpochMilli(inventory.takenAtMillis())
          + ", in the future; nothing was deleted");
    }
    if (olderThan.toMillis() <= age) {
      throw new SafetyRefusal(
          "listing " + inventory.source() + " was taken " + Durations.format(Duration.ofMillis(age))
              + " ago, at or beyond the age guard " + Durations.format(olderThan)
              + "; raise --older-than above the listing's age"
              + " or use a newer listing; nothing was deleted");
    }
  }

  /** A link there would carry the candidates out of the table (and purge, which follows no link, would never reach them). */
  static void requireQuarantineNotThroughALink(Quarantine holding, StoredFile quarantineDir) {
    if (!quarantineDir.equals(StoredFile.parse(holding.directory()))) {
      throw new SafetyRefusal("quarantine: " + holding.directory()
          + " is reached through a symbolic link (to " + quarantineDir
          + "); remove the link or run without --quarantine; nothing was moved");
    }
  }

  /**
   * A listed file that shows a table of its own — a {@code _delta_log} anywhere, Iceberg metadata
   * below the location — means another table lives in the scope, whether a catalog names it or not:
   * every one of its files would look unreferenced here.
   */
  static void requireNoOtherTable(Scope.Root root, StoredFile file) {
    String relative = file.path().substring(root.id().path().length());
    relative = relative.startsWith("/") ? relative.substring(1) : relative;
    TableMarkers.inKey(relative).ifPresent(found -> {
      boolean own = found.format() == TableMarkers.Format.ICEBERG
          && found.directory().isEmpty()
          && root.property().equals("location");
      if (!own) {
        String at = found.directory().isEmpty()
            ? root.id().key()
            : root.id().key() + "/" + String.join("/", found.directory());
        throw new SafetyRefusal("scope: " + found.format().label + " lives at " + at
            + ", inside this table's storage" + " (found " + file
            + "); its files would look unreferenced here; nothing was deleted");
      }
    });
  }

  /**
   * The race window: a commit between the metadata read and the deletes could reference a candidate
   * (a writer that re-adds an old file). Read once more, and refuse if it does.
   */
  static void requireUnchangedSince(
      TableOperations ops,
      TableMetadata after,
      MetadataWalker walker,
      Ledger ledger,
      StoredFile.Resolver resolver) {
    TableMetadata latest = ops.refresh();
    if (latest == after
        || Objects.equals(latest.metadataFileLocation(), after.metadataFileLocation())) {
      return;
    }
    walker.walk(
        latest,
        (kind, location, size) -> resolver.resolveAll(location).forEach(ledger::addLateReference));
    List<String> hits = ledger.orphansReferencedLate(5);
    if (!hits.isEmpty()) {
      throw new SafetyRefusal("the table changed during the run and now references "
          + String.join(", ", hits) + "; nothing was deleted");
    }
  }
}
