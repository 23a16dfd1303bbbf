package dev.resurfacer.iceberg.testing;

import java.util.List;

/** A resurfacer.yml that enables every Iceberg operation of {@code maintain}, and the order the runner runs them in. */
public final class EveryOperation {
  private EveryOperation() {}

  public static final List<String> DESIGN_ORDER = List.of(
      "apply-retention",
      "condense",
      "compact",
      "remove-dangling-deletes",
      "convert-equality-deletes",
      "rewrite-position-deletes",
      "rewrite-manifests",
      "compute-stats",
      "compute-partition-stats",
      "expire",
      "remove-orphans");

  /** Every operation on; condensing partitions older than a day; expiry and orphan removal with no age guard. */
  public static final String POLICY = """
      defaults:
        apply-retention: {enabled: true, keep: 10}
        condense: {enabled: true, to: month, older-than: 1d}
        compact: {min-input-files: 2}
        convert-equality-deletes: {enabled: true}
        rewrite-position-deletes: {enabled: true}
        compute-stats: {enabled: true}
        compute-partition-stats: {enabled: true}
        expire: {older-than: 0s, retain-last: 1}
        remove-orphans: {older-than: 0s}
      """;
}
