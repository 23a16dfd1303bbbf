package dev.resurfacer.iceberg.deletes;

import java.util.List;

/**
 * What {@code remove-dangling-deletes} would remove (preview) or removed (committed). Removal is
 * metadata-only: the files stay on storage until expiry frees them with the snapshots that reference them.
 *
 * @param snapshotId the new snapshot when committed, else the snapshot that was examined (null if none)
 * @param deleteFiles live delete files in the examined snapshot
 */
public record DanglingDeletesResult(
    String table,
    boolean committed,
    Long snapshotId,
    long deleteFiles,
    long files,
    long records,
    long bytes,
    List<DanglingDelete> dangling) {

  /**
   * @param kind position, deletion_vector or equality
   * @param referencedDataFile the one data file a deletion vector or file-scoped position delete targets, else null
   */
  public record DanglingDelete(
      String path,
      String kind,
      int specId,
      String partition,
      long dataSequenceNumber,
      long records,
      long bytes,
      String referencedDataFile) {}
}
