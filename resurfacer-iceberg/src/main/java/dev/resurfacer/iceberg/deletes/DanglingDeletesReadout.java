package dev.resurfacer.iceberg.deletes;

import dev.resurfacer.report.RecordReadout;
import dev.resurfacer.units.ByteSizes;
import java.util.Locale;

/**
 * What {@code remove-dangling-deletes} on the local engine shows: the {@link DanglingDeletesResult} as JSON, and
 * its text.
 *
 * @param asked whether the run was asked to act ({@code --yes}): the text of one that was says no "preview only"
 */
public record DanglingDeletesReadout(DanglingDeletesResult result, boolean asked)
    implements RecordReadout {
  @Override
  public String render() {
    DanglingDeletesResult r = result;
    StringBuilder b = new StringBuilder();
    String verb = r.committed() ? "removed" : asked ? "found" : "would remove";
    b.append(String.format(
        Locale.ROOT,
        "%s: %s %d of %d delete file(s) (%d records, %s)%n",
        r.table(),
        verb,
        r.files(),
        r.deleteFiles(),
        r.records(),
        ByteSizes.format(r.bytes())));
    for (DanglingDeletesResult.DanglingDelete d : r.dangling()) {
      b.append(String.format(
          Locale.ROOT,
          "  %-15s seq %-5d %-24s %s%n",
          d.kind().replace('_', ' '),
          d.dataSequenceNumber(),
          d.partition().isEmpty() ? "(unpartitioned)" : d.partition(),
          d.path()));
    }
    if (r.committed()) {
      b.append("metadata only: the files stay on storage until expire frees them\n");
    } else if (!asked && r.files() > 0) {
      b.append("preview only: nothing was changed (pass --yes to remove)\n");
    }
    return b.toString().stripTrailing();
  }
}
