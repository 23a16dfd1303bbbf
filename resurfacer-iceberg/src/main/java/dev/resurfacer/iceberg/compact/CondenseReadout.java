package dev.resurfacer.iceberg.compact;

import dev.resurfacer.report.RecordReadout;
import dev.resurfacer.units.ByteSizes;
import dev.resurfacer.units.Durations;
import java.time.Duration;
import java.util.Locale;

/**
 * What {@code condense} shows: the {@link Condensing.CondenseResult} as JSON, and its text.
 *
 * @param olderThan the age the run was given, which the text repeats
 * @param asked whether the run was asked to act ({@code --yes}): one that was and left a partition uncommitted
 *     failed
 */
public record CondenseReadout(Condensing.CondenseResult result, Duration olderThan, boolean asked)
    implements RecordReadout {
  @Override
  public String render() {
    Condensing.CondenseResult r = result;
    if (r.doesNotApply() != null) {
      return String.format(
          Locale.ROOT,
          "condense %s --to %s: nothing to do: %s",
          r.table(),
          r.to(),
          r.doesNotApply());
    }
    StringBuilder b = new StringBuilder();
    b.append(String.format(
        Locale.ROOT,
        "condense %s: %s(%s) -> %s, partitions ended more than %s ago%n",
        r.table(),
        r.from(),
        r.field(),
        r.to(),
        Durations.format(olderThan)));
    for (Condensing.Partition p : r.partitions()) {
      b.append(String.format(
          Locale.ROOT,
          "  %-40s %4d files %9s  %s%s%n",
          p.partition(),
          p.files(),
          ByteSizes.format(p.bytes()),
          p.status(),
          p.message() == null ? "" : " (" + p.message() + ")"));
    }
    if (r.partitions().isEmpty()) {
      b.append("  nothing old enough to condense\n");
    }
    if (!asked) {
      b.append("preview only: nothing was changed (run with --yes to condense)\n");
    }
    return b.toString().stripTrailing();
  }

  @Override
  public boolean succeeded() {
    return !asked || result.committed() || result.partitions().isEmpty();
  }
}
