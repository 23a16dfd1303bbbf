package dev.resurfacer.iceberg.deletes;

import dev.resurfacer.report.RecordReadout;
import dev.resurfacer.units.ByteSizes;
import java.util.Locale;

/**
 * What {@code rewrite-position-deletes} on a format-v2 table shows: the {@link PositionDeleteRewrite.Result} as
 * JSON, and its text.
 */
public record PositionDeleteRewriteReadout(PositionDeleteRewrite.Result result)
    implements RecordReadout {
  @Override
  public String render() {
    PositionDeleteRewrite.Result r = result;
    StringBuilder b = new StringBuilder();
    for (PositionDeleteRewrite.Group g : r.groups()) {
      b.append(String.format(
          Locale.ROOT,
          "  %-40s %3d delete files %9s -> %d, %d entries kept, %d dropped (data file gone)%n",
          g.partition(),
          g.inputFiles(),
          ByteSizes.format(g.inputBytes()),
          g.outputFiles(),
          g.keptEntries(),
          g.droppedEntries()));
    }
    b.append(
        r.groups().isEmpty()
            ? "no position-delete files to rewrite in " + r.table()
            : r.committed()
                ? "rewrote " + r.rewrittenFiles() + " position-delete files in snapshot "
                    + r.snapshotId()
                : "preview only: nothing was changed (run with --yes to rewrite)");
    return b.toString();
  }
}
