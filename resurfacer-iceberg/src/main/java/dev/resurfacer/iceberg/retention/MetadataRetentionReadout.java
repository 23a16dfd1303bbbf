package dev.resurfacer.iceberg.retention;

import dev.resurfacer.report.RecordReadout;
import dev.resurfacer.units.ByteSizes;
import java.util.Locale;

/**
 * What {@code apply-retention} shows: the {@link MetadataRetention.Result} as JSON, and its text.
 *
 * @param asked whether the run was asked to act ({@code --yes}): the text of one that was says no "preview only"
 */
public record MetadataRetentionReadout(MetadataRetention.Result result, boolean asked)
    implements RecordReadout {
  @Override
  public String render() {
    MetadataRetention.Result r = result;
    String text = String.format(
            Locale.ROOT,
            "%s: %d metadata.json in the log; %d stranded on disk (%s) for remove-orphans to sweep%n",
            r.table(),
            r.metadataInLog(),
            r.strandedFiles(),
            ByteSizes.format(r.strandedBytes()))
        + (r.propertiesToSet().isEmpty()
            ? "retention properties already set"
            : (r.committed() ? "set " : "would set ") + r.propertiesToSet());
    if (!asked && !r.propertiesToSet().isEmpty()) {
      text +=
          System.lineSeparator() + "preview only: nothing was changed (run with --yes to apply)";
    }
    return text;
  }
}
