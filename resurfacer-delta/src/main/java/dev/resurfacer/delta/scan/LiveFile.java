package dev.resurfacer.delta.scan;

import dev.resurfacer.storage.StoredFile;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One data file of a table version ({@code add} action after log replay).
 *
 * @param logPath the {@code path} exactly as the log wrote it (URL-encoded when relative)
 * @param identities every file it can name ({@link dev.resurfacer.delta.table.TableStorage#resolveAll}), the one read first
 * @param numRecords rows in the file before deletion vectors, from its stats when present
 */
public record LiveFile(
    String logPath,
    List<StoredFile> identities,
    long size,
    long modificationTime,
    Map<String, String> partitionValues,
    Optional<DeletionVectorRef> deletionVector,
    OptionalLong numRecords) {
  public LiveFile {
    identities = List.copyOf(identities);
    if (identities.isEmpty()) {
      throw new IllegalArgumentException("a live file names at least one file");
    }
    partitionValues = Collections.unmodifiableMap(new LinkedHashMap<>(partitionValues));
  }

  /** The file it names, as Delta's readers open it. */
  public StoredFile file() {
    return identities.get(0);
  }

  public long deletedRows() {
    return deletionVector.map(DeletionVectorRef::cardinality).orElse(0L);
  }
}
