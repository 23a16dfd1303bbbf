package dev.resurfacer.iceberg.expire;

import dev.resurfacer.UsageException;
import java.time.Duration;
import java.util.List;

/**
 * What the user asked of {@code expire}. Unset values fall back to the table's own properties, as
 * the Iceberg spec defines them: {@code history.expire.max-snapshot-age-ms} (5 days) and
 * {@code history.expire.min-snapshots-to-keep} (1, per branch, winning over age).
 *
 * @param olderThan expire snapshots older than this; null for the table property
 * @param retainLast keep at least this many snapshots per branch; null for the table property
 * @param snapshotIds snapshots to expire explicitly, in addition to the age rule
 * @param expireRefs allow tags and branches past their max-ref-age to be dropped
 */
public record ExpireOptions(Duration olderThan, Integer retainLast, List<Long> snapshotIds, boolean expireRefs) {
  public ExpireOptions {
    if (olderThan != null && olderThan.isNegative()) {
      throw new UsageException("--older-than must not be negative (got " + olderThan + ")");
    }
    if (retainLast != null && retainLast < 1) {
      throw new UsageException("--retain-last must be at least 1 (got " + retainLast + "): the current snapshot is never expired");
    }
    snapshotIds = snapshotIds == null ? List.of() : List.copyOf(snapshotIds);
  }

  /** The table's own retention, nothing else. */
  public static ExpireOptions defaults() {
    return new ExpireOptions(null, null, List.of(), false);
  }
}
