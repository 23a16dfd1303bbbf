package dev.resurfacer.units;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class UnitsTest {
  @Test
  void parsesDurations() {
    assertThat(Durations.parse("90d")).isEqualTo(Duration.ofDays(90));
    assertThat(Durations.parse("12h")).isEqualTo(Duration.ofHours(12));
    assertThat(Durations.parse("30m")).isEqualTo(Duration.ofMinutes(30));
    assertThat(Durations.parse("0s")).isEqualTo(Duration.ZERO);
    assertThat(Durations.parse("2w")).isEqualTo(Duration.ofDays(14));
    assertThat(Durations.format(Duration.ofDays(3))).isEqualTo("3d");
    assertThat(Durations.format(Duration.ofMinutes(90))).isEqualTo("90m");
  }

  @Test
  void rejectsBadDurations() {
    assertThatThrownBy(() -> Durations.parse("-3d"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("invalid duration '-3d'");
    assertThatThrownBy(() -> Durations.parse("3 days")).isInstanceOf(UsageException.class);
    assertThatThrownBy(() -> Durations.parse("")).isInstanceOf(UsageException.class);
  }

  @Test
  void parsesSizes() {
    assertThat(ByteSizes.parse("512MB")).isEqualTo(512L << 20);
    assertThat(ByteSizes.parse("1GB")).isEqualTo(1L << 30);
    assertThat(ByteSizes.parse("64kb")).isEqualTo(64L << 10);
    assertThat(ByteSizes.parse("1048576")).isEqualTo(1L << 20);
    assertThat(ByteSizes.parse("1.5GB")).isEqualTo(3L << 29);
    assertThat(ByteSizes.format(512L << 20)).isEqualTo("512 MB");
    assertThat(ByteSizes.format(1536)).isEqualTo("1.5 KB");
    assertThatThrownBy(() -> ByteSizes.parse("lots"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("invalid size 'lots'");
    assertThatThrownBy(() -> ByteSizes.parse("-1MB")).isInstanceOf(UsageException.class);
  }
}
