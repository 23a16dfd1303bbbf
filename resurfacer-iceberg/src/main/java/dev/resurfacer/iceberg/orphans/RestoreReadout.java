package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.report.Readout;
import dev.resurfacer.units.ByteSizes;

/** What {@code restore-orphans} shows: the {@link RestoreReport} as JSON, and its text. */
public record RestoreReadout(RestoreReport report) implements Readout {
  @Override
  public Object json() {
    return report;
  }

  /** A file whose original location is taken again stays in the quarantine, and the run exits non-zero. */
  @Override
  public boolean succeeded() {
    return report.conflicts().isEmpty();
  }

  @Override
  public String render() {
    RestoreReport r = report;
    StringBuilder b = new StringBuilder();
    b.append("restore-orphans " + r.table() + " " + r.runId()
            + (r.restored() ? "" : "  (preview: nothing moved; --yes restores)"))
        .append('\n');
    b.append((r.restored() ? "restored       " : "would restore  ") + r.files() + " files, "
            + ByteSizes.format(r.bytes()))
        .append('\n');
    if (r.alreadyBack() > 0) {
      b.append("already back   " + r.alreadyBack() + " files").append('\n');
    }
    for (String c : r.conflicts()) {
      b.append("left held      " + c + " (its original location is taken)").append('\n');
    }
    return b.toString().stripTrailing();
  }
}
