package dev.resurfacer.iceberg.deletes;

import dev.resurfacer.report.RecordReadout;
import java.util.Locale;

/**
 * What {@code convert-equality-deletes} shows: the {@link EqualityDeleteConversion.Result} as JSON, and its
 * text.
 */
public record EqualityDeleteConversionReadout(EqualityDeleteConversion.Result result)
    implements RecordReadout {
  @Override
  public String render() {
    EqualityDeleteConversion.Result r = result;
    if (r.equalityDeleteFiles() == 0) {
      return "no equality-delete files in " + r.table();
    }
    return String.format(
            Locale.ROOT,
            "%s: %d equality-delete files resolved against %d data files: %d deleted rows -> %s%n",
            r.table(),
            r.equalityDeleteFiles(),
            r.dataFiles(),
            r.deletedRows(),
            r.deletionVectors() ? "deletion vectors" : "position deletes")
        + (r.committed()
            ? "wrote " + r.writtenDeleteFiles() + " delete files in snapshot " + r.snapshotId()
            : "preview only: nothing was changed (run with --yes to convert)");
  }
}
