package dev.resurfacer.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.maintain.TableSignals;
import dev.resurfacer.policy.Triggers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class AssessmentTest {
  private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

  private static TableSignals signals(
      long small, long deleteFiles, long records, long deleted, int snapshots, int commits) {
    return new TableSignals(
        small + 1,
        small,
        deleteFiles,
        records,
        deleted,
        snapshots,
        NOW.minus(Duration.ofDays(3)),
        10,
        commits);
  }

  @Test
  void aReachedTriggerFiresAndTheWorstSignalSetsTheScore() {
    Triggers t =
        new Triggers(true, 50L, 20L, null, 0.1, null, Duration.ofDays(7), null, null, List.of());
    Assessment a = Assessment.of(t, signals(25, 0, 1000, 50, 10, 3), NOW.minusSeconds(60), NOW);
    assertThat(a.fired()).containsExactly("small-files 25 >= 20");
    // 25/20 = 1.25 of the threshold: 100 - 50 * 1.25
    assertThat(a.score()).isEqualTo(38);
    assertThat(a.why())
        .startsWith("small-files 25 (trigger at 20); deleted-row-ratio 0.050 (trigger at 0.100)");
  }

  @Test
  void underEveryThresholdNothingFiresAndSignalsWithoutATriggerUseTheReference() {
    Assessment a = Assessment.of(Triggers.NONE, signals(10, 0, 100, 0, 400, 99), null, NOW);
    assertThat(a.fired()).isEmpty();
    // snapshots 400 of the reference 500
    assertThat(a.score()).isEqualTo(60);
    assertThat(a.why()).isEqualTo("snapshots 400 (reference 500)");
  }

  @Test
  void sinceLastRunFiresForATableThatNeverRanAndAgeTriggersCompareDurations() {
    Triggers t = new Triggers(
        true,
        null,
        null,
        null,
        null,
        null,
        Duration.ofDays(2),
        null,
        Duration.ofHours(1),
        List.of());
    Assessment never = Assessment.of(t, signals(0, 0, 0, 0, 1, 0), null, NOW);
    assertThat(never.fired())
        .containsExactly("since-last-run never ran >= 1h", "oldest-snapshot-age 3.0d >= 2d");
    assertThat(never.score()).isZero();
    Assessment recent =
        Assessment.of(t, signals(0, 0, 0, 0, 1, 0), NOW.minus(Duration.ofMinutes(10)), NOW);
    assertThat(recent.fired()).containsExactly("oldest-snapshot-age 3.0d >= 2d");
  }

  @Test
  void switchedOffTriggersNeverFire() {
    Triggers off = new Triggers(
        false, 1L, 1L, 1L, 0.01, 1L, Duration.ofSeconds(1), 1L, Duration.ofSeconds(1), List.of());
    assertThat(Assessment.of(off, signals(500, 9, 10, 9, 900, 900), null, NOW).fired())
        .isEmpty();
  }
}
