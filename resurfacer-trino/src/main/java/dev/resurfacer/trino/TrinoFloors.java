package dev.resurfacer.trino;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.units.Durations;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Trino's retention floors, read before asking Trino to act so that a preview already says what
 * Trino would refuse. The floor is the catalog's session property (its default is the catalog
 * setting); the same refusal comes from {@link TrinoFailures} if Trino refuses anyway.
 */
enum TrinoFloors {
  EXPIRE_SNAPSHOTS(
      "expire_snapshots",
      "expire_snapshots_min_retention",
      "iceberg.expire-snapshots.min-retention"),
  REMOVE_ORPHAN_FILES(
      "remove_orphan_files",
      "remove_orphan_files_min_retention",
      "iceberg.remove-orphan-files.min-retention"),
  DELTA_VACUUM("vacuum", "vacuum_min_retention", "delta.vacuum.min-retention");

  private static final Pattern AIRLIFT_DURATION =
      Pattern.compile("^\\s*(\\d+(?:\\.\\d+)?)\\s*(ns|us|ms|s|m|h|d)\\s*$");

  private final String procedure;
  private final String sessionProperty;
  private final String configProperty;

  TrinoFloors(String procedure, String sessionProperty, String configProperty) {
    this.procedure = procedure;
    this.sessionProperty = sessionProperty;
    this.configProperty = configProperty;
  }

  /** Refuses when {@code retention} is below this floor on the connection's catalog. */
  void check(TrinoStatements trino, Duration retention) {
    String catalog = trino.connection().catalog();
    String value = trino.sessionProperty(procedure, catalog + "." + sessionProperty);
    if (value == null) {
      return;
    }
    Duration floor = parse(value);
    if (retention.compareTo(floor) < 0) {
      throw new SafetyRefusal("Trino refuses " + procedure + " with retention "
          + Durations.format(retention) + ": its floor "
          + configProperty + " is " + value + " on catalog " + catalog
          + " (lower that setting or the session property "
          + catalog + "." + sessionProperty + ", or ask for at least " + value + ")");
    }
  }

  /** An airlift duration as Trino prints it, e.g. {@code 7.00d}, {@code 0.00s}, {@code 100ms}. */
  static Duration parse(String text) {
    Matcher m = AIRLIFT_DURATION.matcher(text.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalStateException("cannot read Trino duration '" + text + "'");
    }
    double amount = Double.parseDouble(m.group(1));
    double nanosPerUnit = switch (m.group(2)) {
      case "ns" -> 1;
      case "us" -> 1e3;
      case "ms" -> 1e6;
      case "s" -> 1e9;
      case "m" -> 60e9;
      case "h" -> 3600e9;
      default -> 86400e9;
    };
    return Duration.ofNanos(Math.round(amount * nanosPerUnit));
  }
}
