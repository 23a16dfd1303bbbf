package dev.resurfacer.delta.log;

import dev.resurfacer.delta.scan.DeletionVectorRef;
import dev.resurfacer.storage.StoredFile;
import java.util.Optional;

/**
 * A {@code remove} action: the file (and the deletion vector it carried) left the table at
 * {@code deletionTimestamp} and must stay on storage for time travel until the retention passes.
 */
public record Tombstone(String logPath, StoredFile file, long deletionTimestamp, long version, Optional<DeletionVectorRef> deletionVector) {}
