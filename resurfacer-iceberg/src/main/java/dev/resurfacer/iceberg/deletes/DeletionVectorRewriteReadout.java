package dev.resurfacer.iceberg.deletes;

import dev.resurfacer.report.RecordReadout;
import java.util.Locale;

/**
 * What {@code rewrite-position-deletes} on a format-v3 table shows: the {@link DeletionVectorRewrite.Result} as
 * JSON, and its text.
 */
public record DeletionVectorRewriteReadout(DeletionVectorRewrite.Result result)
    implements RecordReadout {
  @Override
  public String render() {
    DeletionVectorRewrite.Result r = result;
    if (r.positionDeleteFiles() == 0) {
      return "no position-delete files to turn into deletion vectors in " + r.table();
    }
    return String.format(
            Locale.ROOT,
            "%s (format v3): %d position-delete files -> %d deletion vectors for %d data files, %d deleted positions%n",
            r.table(),
            r.positionDeleteFiles(),
            r.deletionVectors(),
            r.dataFiles(),
            r.positions())
        + (r.committed()
            ? "committed snapshot " + r.snapshotId()
            : "preview only: nothing was changed (run with --yes to rewrite)");
  }
}
