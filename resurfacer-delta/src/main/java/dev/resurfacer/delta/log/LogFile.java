package dev.resurfacer.delta.log;

import dev.resurfacer.storage.StoredFile;

/**
 * One entry of {@code _delta_log}.
 *
 * @param version the table version it belongs to; -1 for {@code _last_checkpoint} and unknown names
 */
public record LogFile(StoredFile path, Kind kind, long version, long size, long modificationTime) {
  public enum Kind {
    COMMIT,
    CHECKPOINT,
    CHECKSUM,
    COMPACTION,
    LAST_CHECKPOINT,
    SIDECAR,
    OTHER
  }
}
