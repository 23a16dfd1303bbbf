package dev.resurfacer.delta.log;

import dev.resurfacer.delta.scan.DeletionVectorRef;
import dev.resurfacer.storage.StoredFile;
import java.util.List;
import java.util.Optional;

/**
 * A {@code remove} action: the file (and the deletion vector it carried) left the table at
 * {@code deletionTimestamp} and must stay on storage for time travel until the retention passes.
 *
 * @param identities every file its path can name ({@link dev.resurfacer.delta.table.TableStorage#resolveAll}), the one read first
 */
public record Tombstone(
    String logPath,
    List<StoredFile> identities,
    long deletionTimestamp,
    long version,
    Optional<DeletionVectorRef> deletionVector) {
  public Tombstone {
    identities = List.copyOf(identities);
    if (identities.isEmpty()) {
      throw new IllegalArgumentException("a tombstone names at least one file");
    }
  }

  /** The file it names, as Delta's readers open it. */
  public StoredFile file() {
    return identities.get(0);
  }
}
