package dev.resurfacer.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Trino's clock against ours: the threshold widened by Trino's possible lead, a lead past the tolerance refused. */
class TrinoClockTest {
  static final String URL = "jdbc:trino://127.0.0.1:8080";

  @Test
  void aClockBehindOursAddsNothingAndOneAheadAddsItsLeadAndTheRoundTrip() {
    assertThat(TrinoClock.of(1_000, 5_000, 5_100, URL, "expire_snapshots").lead())
        .isZero();
    // Trino read 10_040 while ours went 10_000 -> 10_030: it may be up to 40 ms ahead
    assertThat(TrinoClock.of(10_040, 10_000, 10_030, URL, "expire_snapshots").lead())
        .isEqualTo(Duration.ofMillis(40));
  }

  @Test
  void theThresholdKeepsTrinosCutoffAtOrBeforeOurs() {
    TrinoClock ahead = new TrinoClock(Duration.ofSeconds(20));
    long ourCutoff = System.currentTimeMillis() - Duration.ofHours(1).toMillis();
    long threshold = ahead.threshold(ourCutoff);
    // Trino's cutoff is its now (ours + at most the lead) minus the threshold
    long trinoCutoff = System.currentTimeMillis() + ahead.lead().toMillis() - threshold;
    assertThat(trinoCutoff).isLessThanOrEqualTo(ourCutoff);
    assertThat(threshold)
        .isGreaterThanOrEqualTo(Duration.ofHours(1).plusSeconds(20).toMillis());
  }

  @Test
  void aClockFarAheadIsRefusedNamingTheSkew() {
    long now = 1_000_000_000L;
    assertThatThrownBy(() -> TrinoClock.of(
            now + Duration.ofMinutes(5).toMillis(), now, now + 20, URL, "remove_orphan_files"))
        .isInstanceOf(SafetyRefusal.class)
        .hasMessageContaining("is 299s ahead of this machine's clock")
        .hasMessageContaining(
            "remove_orphan_files computes its retention cutoff from Trino's clock");
  }
}
