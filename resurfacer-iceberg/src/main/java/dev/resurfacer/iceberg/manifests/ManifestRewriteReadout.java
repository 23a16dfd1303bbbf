package dev.resurfacer.iceberg.manifests;

import dev.resurfacer.report.RecordReadout;
import dev.resurfacer.units.ByteSizes;
import java.util.Locale;

/**
 * What {@code rewrite-manifests} on the local engine shows: the {@link ManifestRewriteResult} as JSON, and its
 * text.
 *
 * @param asked whether the run was asked to act ({@code --yes}): the text of one that was says no "preview only"
 */
public record ManifestRewriteReadout(ManifestRewriteResult result, boolean asked)
    implements RecordReadout {
  @Override
  public String render() {
    ManifestRewriteResult r = result;
    StringBuilder b = new StringBuilder();
    b.append(String.format(
        Locale.ROOT,
        "%s: %d data manifest(s), %s, holding %d live data file(s) in %d partition(s); %d delete manifest(s) kept%n",
        r.table(),
        r.dataManifestsBefore(),
        ByteSizes.format(r.dataManifestBytesBefore()),
        r.liveDataFiles(),
        r.partitions(),
        r.deleteManifests()));
    if (r.committed()) {
      b.append(String.format(
          Locale.ROOT,
          "rewrote into %d data manifest(s), %s (snapshot %d)%n",
          r.dataManifestsAfter(),
          ByteSizes.format(r.dataManifestBytesAfter()),
          r.snapshotId()));
    } else if (r.notNeeded().isPresent()) {
      b.append("nothing to do: ").append(r.notNeeded().get()).append('\n');
    } else {
      b.append(String.format(
          Locale.ROOT,
          "would rewrite into about %d data manifest(s) (target %s each)%n",
          r.expectedDataManifests(),
          ByteSizes.format(r.targetManifestBytes())));
      if (!asked) {
        b.append("preview only: nothing was changed (pass --yes to rewrite)\n");
      }
    }
    return b.toString().stripTrailing();
  }
}
