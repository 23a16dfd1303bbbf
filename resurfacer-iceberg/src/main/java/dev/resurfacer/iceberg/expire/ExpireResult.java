package dev.resurfacer.iceberg.expire;

import java.util.List;
import java.util.Map;

/**
 * What {@code expire} would do (preview) or did (committed). In a preview {@code files} are the
 * files that would be deleted; after a commit they are exactly the files that were deleted.
 *
 * @param cutoffMillis snapshots older than this are eligible, subject to {@code retainLast}
 * @param retainLast the minimum snapshots kept per branch (from options or table property)
 * @param refsDropped tags and branches removed because they passed their max-ref-age
 * @param byCategory files and bytes per category (data, delete, manifest, manifest_list, statistics, partition_statistics)
 * @param notDeleted previewed files that are still on storage after the commit (a failed delete, or
 *     core chose to keep it); orphan removal sweeps them later
 * @param removedSpecIds partition specs no retained snapshot uses any more (committed only)
 * @param removedSchemaIds schemas no retained snapshot uses any more (committed only)
 */
public record ExpireResult(
    String table,
    boolean committed,
    long cutoffMillis,
    int retainLast,
    List<ExpiredSnapshot> snapshots,
    List<String> refsDropped,
    long files,
    long bytes,
    Map<String, CategoryTotal> byCategory,
    List<ReclaimedFile> fileList,
    List<String> notDeleted,
    List<Integer> removedSpecIds,
    List<Integer> removedSchemaIds) {

  public record ExpiredSnapshot(long snapshotId, long timestampMillis, String operation) {}

  public record CategoryTotal(long files, long bytes) {}

  public record ReclaimedFile(String path, String category, long bytes) {}
}
