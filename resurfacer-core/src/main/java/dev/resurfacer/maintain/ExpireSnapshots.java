package dev.resurfacer.maintain;

import java.time.Duration;
import java.util.List;

/**
 * Expire old snapshots and delete the files only they reach.
 *
 * @param olderThan null for the table's {@code history.expire.max-snapshot-age-ms}
 * @param retainLast null for the table's {@code history.expire.min-snapshots-to-keep}
 * @param snapshotIds snapshots to expire as well as those past the age rule ({@code --expire-snapshot-id})
 * @param expireRefs whether tags and branches past their max-ref-age may be dropped ({@code --expire-refs})
 */
public record ExpireSnapshots(
    Duration olderThan, Integer retainLast, List<Long> snapshotIds, boolean expireRefs)
    implements Operation {
  public ExpireSnapshots {
    if (olderThan != null && olderThan.isNegative()) {
      throw new IllegalArgumentException("olderThan must not be negative");
    }
    if (retainLast != null && retainLast < 1) {
      throw new IllegalArgumentException("retainLast must be at least 1");
    }
    snapshotIds = snapshotIds == null ? List.of() : List.copyOf(snapshotIds);
  }

  /** By age and count only, as a policy gives it. */
  public ExpireSnapshots(Duration olderThan, Integer retainLast) {
    this(olderThan, retainLast, List.of(), false);
  }

  /** The table's own retention properties. */
  public static ExpireSnapshots tableDefaults() {
    return new ExpireSnapshots(null, null);
  }

  /** As the {@code expire} verb's flags give it: an age or count out of range is that flag's one-line usage error. */
  public static ExpireSnapshots ofFlags(
      Duration olderThan, Integer retainLast, List<Long> snapshotIds, boolean expireRefs) {
    requireValidFlags(olderThan, retainLast);
    return new ExpireSnapshots(olderThan, retainLast, snapshotIds, expireRefs);
  }

  /** Refuses, in the words of the {@code expire} flags, an age or count no expiry can run with. */
  public static void requireValidFlags(Duration olderThan, Integer retainLast) {
    if (olderThan != null && olderThan.isNegative()) {
      throw new dev.resurfacer.UsageException(
          "--older-than must not be negative (got " + olderThan + ")");
    }
    if (retainLast != null && retainLast < 1) {
      throw new dev.resurfacer.UsageException("--retain-last must be at least 1 (got " + retainLast
          + "): the current snapshot is never expired");
    }
  }

  @Override
  public String name() {
    return "expire";
  }

  @Override
  public int order() {
    return EXPIRE_SNAPSHOTS;
  }
}
