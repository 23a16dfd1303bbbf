package dev.resurfacer.delta.vacuum;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * @param retention how long removed and unreferenced files are kept; empty means the table's
 *     {@code delta.deletedFileRetentionDuration} (7 days when unset)
 * @param forceShorterRetention accept a retention shorter than the table's, as Delta does with
 *     {@code retentionDurationCheck.enabled=false}: readers of older versions may then fail
 * @param lite Delta's {@code VACUUM … LITE}: no listing; only files named by tombstones still in the
 *     log are candidates (files removed by commits already cleaned from the log are left to full mode)
 * @param keepVersions versions whose data files and deletion vectors are never candidates
 */
public record VacuumOptions(
    Optional<Duration> retention,
    boolean forceShorterRetention,
    boolean lite,
    List<Long> keepVersions) {
  public VacuumOptions {
    keepVersions = List.copyOf(keepVersions);
  }

  public VacuumOptions(Optional<Duration> retention, boolean forceShorterRetention) {
    this(retention, forceShorterRetention, false, List.of());
  }

  /** What a {@code vacuum} operation record asks for, on any engine. */
  public static VacuumOptions of(dev.resurfacer.maintain.Vacuum op) {
    return new VacuumOptions(
        Optional.ofNullable(op.retention()),
        op.forceShorterRetention(),
        op.lite(),
        op.keepVersions());
  }

  public static VacuumOptions tableDefaults() {
    return new VacuumOptions(Optional.empty(), false);
  }
}
