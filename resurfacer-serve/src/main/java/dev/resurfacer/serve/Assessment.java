package dev.resurfacer.serve;

import dev.resurfacer.maintain.TableSignals;
import dev.resurfacer.policy.Triggers;
import dev.resurfacer.units.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * A table's triggers checked against its signals, and its health score: 100 when every signal is
 * far below its threshold, 50 at a threshold, 0 at twice a threshold or beyond (the worst signal
 * decides). Signals without a trigger are scored against reference thresholds
 * ({@link #REFERENCE}) so every table has a score; only triggers fire.
 *
 * @param conditions every condition that is set or referenced, worst first
 * @param fired the triggers that fired, e.g. {@code small-files 25 >= 20}
 */
public record Assessment(int score, List<Condition> conditions, List<String> fired) {
  /** Thresholds the score uses for a signal the table has no trigger on. */
  public static final Triggers REFERENCE =
      new Triggers(true, null, 100L, 50L, 0.2, 500L, null, 100L, null, List.of());

  public Assessment {
    conditions = List.copyOf(conditions);
    fired = List.copyOf(fired);
  }

  /**
   * @param trigger whether this condition is one of the table's triggers (else a reference for the score)
   * @param pressure value over threshold
   */
  public record Condition(
      String name, String value, String threshold, double pressure, boolean trigger) {
    public boolean reached() {
      return pressure >= 1;
    }
  }

  /** Why the score is what it is, in one line. */
  public String why() {
    List<String> parts = new ArrayList<>();
    for (Condition c : conditions) {
      if (c.pressure() >= 0.5) {
        parts.add(c.name() + " " + c.value() + (c.trigger() ? " (trigger at " : " (reference ")
            + c.threshold() + ")");
      }
    }
    return parts.isEmpty() ? "every signal is under half its threshold" : String.join("; ", parts);
  }

  /**
   * @param lastRun when the table's last run started (any process), or null when it never ran
   */
  public static Assessment of(Triggers triggers, TableSignals s, Instant lastRun, Instant now) {
    boolean on = triggers.enabled();
    List<Condition> all = new ArrayList<>();
    count(
        all,
        "commits",
        s.commitsSince() == null ? null : s.commitsSince().longValue(),
        on ? triggers.commits() : null,
        null);
    count(
        all,
        "small-files",
        s.smallDataFiles(),
        on ? triggers.smallFiles() : null,
        REFERENCE.smallFiles());
    count(
        all,
        "delete-files",
        s.deleteFiles(),
        on ? triggers.deleteFiles() : null,
        REFERENCE.deleteFiles());
    Double ratio = s.deletedRowRatio();
    Double ratioTrigger = on ? triggers.deletedRowRatio() : null;
    if (ratio != null && (ratioTrigger != null || REFERENCE.deletedRowRatio() != null)) {
      double t = ratioTrigger != null ? ratioTrigger : REFERENCE.deletedRowRatio();
      all.add(new Condition(
          "deleted-row-ratio", format(ratio), format(t), ratio / t, ratioTrigger != null));
    }
    count(
        all,
        "snapshots",
        s.snapshots() == null ? null : s.snapshots().longValue(),
        on ? triggers.snapshots() : null,
        REFERENCE.snapshots());
    if (s.oldestSnapshot() != null && on && triggers.oldestSnapshotAge() != null) {
      Duration age = Duration.between(s.oldestSnapshot(), now);
      all.add(age("oldest-snapshot-age", age, triggers.oldestSnapshotAge()));
    }
    count(
        all,
        "metadata-files",
        s.metadataFiles() == null ? null : s.metadataFiles().longValue(),
        on ? triggers.metadataFiles() : null,
        REFERENCE.metadataFiles());
    if (on && triggers.sinceLastRun() != null) {
      if (lastRun == null) {
        all.add(new Condition(
            "since-last-run",
            "never ran",
            Durations.format(triggers.sinceLastRun()),
            Double.POSITIVE_INFINITY,
            true));
      } else {
        all.add(age("since-last-run", Duration.between(lastRun, now), triggers.sinceLastRun()));
      }
    }
    all.sort(Comparator.comparingDouble(Condition::pressure).reversed());
    double worst = all.stream().mapToDouble(Condition::pressure).max().orElse(0);
    int score = (int) Math.round(100 - 50 * Math.min(2, worst));
    List<String> fired = new ArrayList<>();
    for (Condition c : all) {
      if (c.trigger() && c.reached()) {
        fired.add(c.name() + " " + c.value() + " >= " + c.threshold());
      }
    }
    return new Assessment(score, all, fired);
  }

  private static void count(
      List<Condition> out, String name, Long value, Long trigger, Long reference) {
    if (value == null || (trigger == null && reference == null)) {
      return;
    }
    long t = trigger != null ? trigger : reference;
    out.add(new Condition(
        name, Long.toString(value), Long.toString(t), (double) value / t, trigger != null));
  }

  private static Condition age(String name, Duration age, Duration threshold) {
    Duration shown = age.isNegative() ? Duration.ZERO : age.withNanos(0);
    return new Condition(
        name,
        Durations.humanAge(shown),
        Durations.format(threshold),
        (double) age.toMillis() / Math.max(1, threshold.toMillis()),
        true);
  }

  private static String format(double d) {
    return String.format(Locale.ROOT, "%.3f", d);
  }
}
