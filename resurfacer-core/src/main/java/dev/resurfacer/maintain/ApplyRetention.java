package dev.resurfacer.maintain;

/**
 * Set the table's metadata.json retention: keep {@code keep} previous versions and, with
 * {@code deleteAfterCommit}, delete older ones as later commits trim the log.
 */
public record ApplyRetention(int keep, boolean deleteAfterCommit) implements Operation {
  public ApplyRetention {
    if (keep < 1) {
      throw new IllegalArgumentException("keep must be at least 1");
    }
  }

  /** Iceberg's own default of 100 versions, deleted after commit. */
  public static ApplyRetention defaults() {
    return new ApplyRetention(100, true);
  }

  @Override
  public String name() {
    return "apply-retention";
  }

  @Override
  public int order() {
    return APPLY_RETENTION;
  }
}
