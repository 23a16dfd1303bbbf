package dev.resurfacer.iceberg.manifests;

/**
 * What {@code rewrite-manifests} would do (preview) or did (committed). Only data manifests are
 * rewritten; delete manifests are kept as they are.
 *
 * @param snapshotId the new {@code replace} snapshot when committed, else the current snapshot (null if none)
 * @param partitions distinct (spec, partition) groups among live data files: the clusters
 * @param expectedDataManifests about one manifest per partition, more where a partition's entries
 *     exceed {@code targetManifestBytes} ({@code commit.manifest.target-size-bytes})
 * @param alreadyClustered every data manifest already holds one partition and no partition is split: nothing to do
 * @param dataManifestsAfter after the commit; equal to before in a preview
 */
public record ManifestRewriteResult(
    String table,
    boolean committed,
    Long snapshotId,
    int dataManifestsBefore,
    long dataManifestBytesBefore,
    int deleteManifests,
    long liveDataFiles,
    int partitions,
    long targetManifestBytes,
    int expectedDataManifests,
    boolean alreadyClustered,
    int dataManifestsAfter,
    long dataManifestBytesAfter) {

  /**
   * Why the rewrite is not needed, or empty when it is: the one decision the verb, its preview and
   * every {@code maintain} executor take. One manifest is left as it is, however many partitions it
   * holds: a scan opens that one file either way, and splitting it would make a full scan open more.
   */
  public java.util.Optional<String> notNeeded() {
    if (dataManifestsBefore == 0) {
      return java.util.Optional.of("no data manifests");
    }
    if (dataManifestsBefore == 1) {
      return java.util.Optional.of("one data manifest: nothing to regroup");
    }
    if (alreadyClustered) {
      return java.util.Optional.of("data manifests already clustered by partition");
    }
    return java.util.Optional.empty();
  }
}
