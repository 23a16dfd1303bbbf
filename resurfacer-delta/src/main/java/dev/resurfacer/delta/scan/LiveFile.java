package dev.resurfacer.delta.scan;

import dev.resurfacer.storage.StoredFile;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One data file of a table version ({@code add} action after log replay).
 *
 * @param logPath the {@code path} exactly as the log wrote it (URL-encoded when relative)
 * @param file the file it names
 * @param numRecords rows in the file before deletion vectors, from its stats when present
 */
public record LiveFile(String logPath, StoredFile file, long size, long modificationTime, Map<String, String> partitionValues,
    Optional<DeletionVectorRef> deletionVector, OptionalLong numRecords) {
  public LiveFile {
    partitionValues = Collections.unmodifiableMap(new LinkedHashMap<>(partitionValues));
  }

  public long deletedRows() {
    return deletionVector.map(DeletionVectorRef::cardinality).orElse(0L);
  }
}
