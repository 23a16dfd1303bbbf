package dev.resurfacer.trino;

import dev.resurfacer.SafetyRefusal;
import java.time.Duration;

/**
 * Trino computes a procedure's retention cutoff from its own clock (the query's start), ours from
 * this JVM's. When Trino's clock runs ahead, its cutoff is later than the one we previewed and
 * fenced, so it could expire a snapshot or delete a file we kept. We read Trino's
 * {@code current_timestamp} and widen the threshold we pass by how far Trino may be ahead (the
 * measured lead plus the round trip, since the instant Trino read lies somewhere inside it), and
 * refuse when it is ahead by more than {@link #TOLERANCE}: a clock that wrong is a fault to fix, not
 * a margin to absorb.
 *
 * @param lead how far Trino's clock may be ahead of ours at most (never negative)
 */
record TrinoClock(Duration lead) {
  static final Duration TOLERANCE = Duration.ofMinutes(1);

  /** Reads Trino's clock once, between two readings of ours. */
  static TrinoClock measure(TrinoStatements trino, String what) {
    long before = System.currentTimeMillis();
    String millis =
        trino.value(what, "SELECT CAST(to_unixtime(current_timestamp) * 1000 AS bigint)");
    long after = System.currentTimeMillis();
    return of(Long.parseLong(millis), before, after, trino.connection().url(), what);
  }

  /**
   * The bound on Trino's lead from one reading {@code trinoMillis} taken while our clock went from
   * {@code ourBefore} to {@code ourAfter}: the latest Trino could be ahead is {@code trino - before}.
   */
  static TrinoClock of(long trinoMillis, long ourBefore, long ourAfter, String url, String what) {
    long lead = Math.max(0, trinoMillis - ourBefore);
    long ahead = trinoMillis - ourAfter;
    if (ahead > TOLERANCE.toMillis()) {
      throw new SafetyRefusal("Trino at " + url + " is "
          + Duration.ofMillis(ahead).toSeconds() + "s ahead of this machine's clock: "
          + what
          + " computes its retention cutoff from Trino's clock, later than the cutoff we previewed (tolerance "
          + TOLERANCE.toSeconds() + "s); synchronise the clocks (NTP) or use --engine local");
    }
    return new TrinoClock(Duration.ofMillis(lead));
  }

  /** The threshold to pass Trino so that its cutoff is never later than {@code ourCutoffMillis} (fixed at our preview). */
  long threshold(long ourCutoffMillis) {
    return Math.max(0, System.currentTimeMillis() - ourCutoffMillis) + lead.toMillis();
  }
}
