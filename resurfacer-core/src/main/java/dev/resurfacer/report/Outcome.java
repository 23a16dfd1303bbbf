package dev.resurfacer.report;

/** How one operation, or one table, ended. Part of the stable JSON schema (lower case there). */
public enum Outcome {
  /** Changed the table. */
  DONE,
  /** Looked, and there was nothing worth changing. */
  NOTHING_TO_DO,
  /** Preview run: computed what it would do, changed nothing. */
  PREVIEWED,
  /** Not run, with a reason (lease held, the table could not be opened, or a step it depends on did not finish). */
  SKIPPED,
  /** A safety fence refused; nothing was changed by this step. */
  REFUSED,
  FAILED;

  @com.fasterxml.jackson.annotation.JsonValue
  public String json() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
