package dev.resurfacer.iceberg.expire;

import dev.resurfacer.report.Readout;
import dev.resurfacer.units.ByteSizes;
import java.time.Instant;
import java.util.Locale;

/** What {@code expire} on the local engine shows: the {@link ExpireResult} as JSON, and its text. */
public record ExpireReadout(ExpireResult result) implements Readout {
  @Override
  public Object json() {
    return result;
  }

  @Override
  public String render() {
    return render(false);
  }

  /** A run that acted lists the files it deleted by name only under {@code --verbose}; a preview always does. */
  @Override
  public String render(boolean verbose) {
    ExpireResult r = result;
    StringBuilder b = new StringBuilder();
    String verb = r.committed() ? "expired" : "would expire";
    b.append(String.format(
        Locale.ROOT,
        "%s: %s %d snapshot(s) older than %s, keeping at least %d per branch%n",
        r.table(),
        verb,
        r.snapshots().size(),
        Instant.ofEpochMilli(r.cutoffMillis()),
        r.retainLast()));
    for (ExpireResult.ExpiredSnapshot s : r.snapshots()) {
      b.append(String.format(
          Locale.ROOT,
          "  snapshot %d  %s  %s%n",
          s.snapshotId(),
          Instant.ofEpochMilli(s.timestampMillis()),
          s.operation()));
    }
    if (!r.refsDropped().isEmpty()) {
      b.append(r.committed() ? "dropped refs: " : "would drop refs: ")
          .append(String.join(", ", r.refsDropped()))
          .append('\n');
    }
    b.append(String.format(
        Locale.ROOT,
        "%s %d file(s), %s%n",
        r.committed() ? "deleted" : "would delete",
        r.files(),
        ByteSizes.format(r.bytes())));
    r.byCategory().forEach((category, total) -> {
      if (total.files() > 0) {
        b.append(String.format(
            Locale.ROOT,
            "  %-21s %6d  %s%n",
            category.replace('_', ' '),
            total.files(),
            ByteSizes.format(total.bytes())));
      }
    });
    if (verbose || !r.committed()) {
      for (ExpireResult.ReclaimedFile f : r.fileList()) {
        b.append(
            String.format(Locale.ROOT, "  %-21s %s%n", f.category().replace('_', ' '), f.path()));
      }
    }
    if (!r.notDeleted().isEmpty()) {
      b.append(r.notDeleted().size())
          .append(" previewed file(s) are still on storage (remove-orphans sweeps them)\n");
    }
    if (!r.removedSpecIds().isEmpty() || !r.removedSchemaIds().isEmpty()) {
      b.append("removed unused partition specs ")
          .append(r.removedSpecIds())
          .append(", schemas ")
          .append(r.removedSchemaIds())
          .append('\n');
    }
    if (!r.committed()) {
      b.append("preview only: nothing was changed (pass --yes to expire)\n");
    }
    return b.toString().stripTrailing();
  }
}
