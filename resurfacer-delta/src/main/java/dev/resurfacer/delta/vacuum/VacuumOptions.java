package dev.resurfacer.delta.vacuum;

import java.time.Duration;
import java.util.Optional;

/**
 * @param retention how long removed and unreferenced files are kept; empty means the table's
 *     {@code delta.deletedFileRetentionDuration} (7 days when unset)
 * @param forceShorterRetention accept a retention shorter than the table's, as Delta does with
 *     {@code retentionDurationCheck.enabled=false}: readers of older versions may then fail
 */
public record VacuumOptions(Optional<Duration> retention, boolean forceShorterRetention) {
  /** What a {@code vacuum} operation record asks for, on any engine. */
  public static VacuumOptions of(dev.resurfacer.maintain.Vacuum op) {
    return new VacuumOptions(Optional.ofNullable(op.retention()), op.forceShorterRetention());
  }

  public static VacuumOptions tableDefaults() {
    return new VacuumOptions(Optional.empty(), false);
  }
}
