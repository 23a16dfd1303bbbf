package dev.resurfacer.iceberg.upgrade;

import dev.resurfacer.report.RecordReadout;

/** What {@code upgrade} shows: the {@link FormatUpgrade.Result} as JSON, and its text. */
public record FormatUpgradeReadout(FormatUpgrade.Result result) implements RecordReadout {
  @Override
  public String render() {
    FormatUpgrade.Result r = result;
    if (!r.changes()) {
      return r.table() + " is already format v" + r.fromVersion() + "; nothing to do";
    }
    StringBuilder b = new StringBuilder();
    b.append(r.table()).append(": format v").append(r.fromVersion()).append(" -> v");
    b.append(r.toVersion()).append(System.lineSeparator());
    r.consequences().forEach(c -> b.append("  - ").append(c).append(System.lineSeparator()));
    b.append(
        r.committed()
            ? "upgraded " + r.table() + " to format v" + r.toVersion()
            : "preview only: nothing was changed (run with --yes to upgrade)");
    return b.toString();
  }
}
