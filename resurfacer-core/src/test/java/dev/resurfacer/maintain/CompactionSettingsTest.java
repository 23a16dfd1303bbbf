package dev.resurfacer.maintain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One compaction request whichever its source: a policy's step and the flags give the same settings, and the
 * values both formats read are read here once, with one wording of a bad value.
 */
class CompactionSettingsTest {
  @Test
  void aStepBecomesSettingsWithItsOptionsSelectionAndOrdering() {
    Compact op = new Compact(
        "zorder",
        "a,b",
        Map.of(
            "min-input-files",
            "2",
            Compact.WHERE,
            "x > 1",
            Compact.PARTITION,
            "d=1",
            Compact.LAYOUT,
            "auto"));
    CompactionSettings s = CompactionSettings.of(op);
    assertThat(s.origin()).isEqualTo(CompactionSettings.Origin.STEP);
    assertThat(s.sparkOptions()).containsExactly(Map.entry("min-input-files", "2"));
    assertThat(s.selection().where()).isEqualTo("x > 1");
    assertThat(s.selection().partition()).isEqualTo("d=1");
    assertThat(s.layout().columns()).containsExactly("a,b");
    assertThat(s.layout().sortBy()).isNull();
    assertThat(s.given()).isEmpty();
    assertThat(s.runnerChoice()).isEqualTo(CompactionSettings.RunnerChoice.AUTO);
    assertThat(s.verifyChoice()).isEqualTo(CompactionSettings.VerifyChoice.CONTENT);
    assertThat(s.toOperation()).isEqualTo(op.withoutLayoutSettings());

    CompactionSettings sort = CompactionSettings.of(Compact.sort("ts DESC"));
    assertThat(sort.layout().sortBy()).isEqualTo("ts DESC");
    assertThat(sort.layout().columns()).isEmpty();
  }

  @Test
  void flagsAndAStepAreReadAlike() {
    CompactionSettings flags = flags("256MB", 0.5, "10m", 3);
    RewriteOptions fromFlags = flags.rewriteOptions();
    RewriteOptions fromStep = CompactionSettings.of(flags.toOperation()).rewriteOptions();
    for (RewriteOptions r : List.of(fromFlags, fromStep)) {
      assertThat(r.targetFileSize()).hasValue(256L << 20);
      assertThat(r.deleteRatioThreshold(0.3)).isEqualTo(0.5);
      assertThat(r.minPartitionIdle()).contains(Duration.ofMinutes(10));
      assertThat(r.groupsPerCommit(10)).isEqualTo(3);
      assertThat(r.maxConcurrentGroups()).isEqualTo(5);
    }
  }

  @Test
  void badValuesAreNamed() {
    assertThatThrownBy(
            () -> new RewriteOptions(Map.of(CompactionSettings.MIN_PARTITION_IDLE, "soon"))
                .minPartitionIdle())
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "min-partition-idle must be a positive duration such as 30s, 10m or 2h (got 'soon')");
    assertThatThrownBy(() -> new RewriteOptions(Map.of(CompactionSettings.COMMIT_EVERY_GROUPS, "0"))
            .groupsPerCommit(4))
        .isInstanceOf(UsageException.class)
        .hasMessage("commit-every-groups must be a positive integer (got '0')");
    assertThatThrownBy(() -> flags("0", null, null, null).sparkOptions())
        .isInstanceOf(UsageException.class)
        .hasMessage("--target-file-size must be greater than zero");
    assertThatThrownBy(() -> flags(null, null, null, 0).sparkOptions())
        .isInstanceOf(UsageException.class)
        .hasMessage("--commit-every-groups must be at least 1 (got 0)");
  }

  private static CompactionSettings flags(
      String target, Double ratio, String idle, Integer everyGroups) {
    return new CompactionSettings(
        new CompactionSettings.Sizes(target, null, null, null),
        new CompactionSettings.Grouping(null, false, null, ratio, null, null),
        new CompactionSettings.Commits(false, null, idle, everyGroups, null),
        Map.of(),
        CompactionSettings.Selection.ALL,
        CompactionSettings.Layout.BIN_PACK,
        CompactionSettings.Running.DEFAULTS,
        List.of());
  }
}
