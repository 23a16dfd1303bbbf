package dev.resurfacer.iceberg.expire;

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
public record ExpireOptions(
    Duration olderThan, Integer retainLast, List<Long> snapshotIds, boolean expireRefs) {
  public ExpireOptions {
    dev.resurfacer.maintain.ExpireSnapshots.requireValidFlags(olderThan, retainLast);
    snapshotIds = snapshotIds == null ? List.of() : List.copyOf(snapshotIds);
  }

  /** What {@code op} asks for, from a policy or the verb's flags alike. */
  public static ExpireOptions of(dev.resurfacer.maintain.ExpireSnapshots op) {
    return new ExpireOptions(op.olderThan(), op.retainLast(), op.snapshotIds(), op.expireRefs());
  }

  /** The table's own retention, nothing else. */
  public static ExpireOptions defaults() {
    return new ExpireOptions(null, null, List.of(), false);
  }
}
