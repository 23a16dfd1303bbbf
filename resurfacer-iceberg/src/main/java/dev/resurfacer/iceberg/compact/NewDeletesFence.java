package dev.resurfacer.iceberg.compact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * Refuses a rewrite's commit that would drop a delete file committed after the rewrite's starting
 * snapshot. A rewrite committed at the starting sequence number leaves its output older than such a
 * delete, so the delete must stay to keep applying to it; yet Iceberg core (1.12,
 * {@code MergingSnapshotProducer.apply}) drops every delete file older than the oldest data file it
 * keeps, counting the files already in the table but not the rewrite's own output. An equality
 * delete, then an append, both committed while a group is rewritten, were enough to bring the
 * deleted rows back. The check runs inside each commit attempt against the exact metadata the
 * catalog swaps, so no commit can slip between it and the swap.
 *
 * <p>The one exception is a delete whose rows the rewrite carried onto its output ({@link
 * ConcurrentDeletes}): its replacement is in the same commit, so it may go.
 */
final class NewDeletesFence implements TableOperations {
  private final TableOperations ops;
  private final long startingSequenceNumber;
  private final Set<String> carried;

  private NewDeletesFence(TableOperations ops, long startingSequenceNumber, Set<String> carried) {
    this.ops = ops;
    this.startingSequenceNumber = startingSequenceNumber;
    this.carried = carried;
  }

  /** The same table, whose commits refuse to drop a delete newer than the starting snapshot. */
  static Table around(Table table, long startingSnapshotId) {
    return around(table, startingSnapshotId, Set.of());
  }

  /** @param carried locations of newer deletes the commit carries onto its output, which it may drop */
  static Table around(Table table, long startingSnapshotId, Set<String> carried) {
    TableOperations ops = ((HasTableOperations) table).operations();
    long sequence = ops.current().snapshot(startingSnapshotId).sequenceNumber();
    return new BaseTable(new NewDeletesFence(ops, sequence, Set.copyOf(carried)), table.name());
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    Snapshot before = base == null ? null : base.currentSnapshot();
    Snapshot after = metadata.currentSnapshot();
    if (before != null && after != null && before.snapshotId() != after.snapshotId()) {
      Set<String> kept = new HashSet<>();
      forEachDelete(after, metadata, d -> kept.add(d.location()));
      forEachDelete(before, base, d -> {
        if (d.dataSequenceNumber() != null
            && d.dataSequenceNumber() > startingSequenceNumber
            && !kept.contains(d.location())
            && !carried.contains(d.location())) {
          throw new ValidationException(
              "Cannot commit the rewrite: it would drop delete file %s (sequence number %s), "
                  + "committed after the rewrite started (sequence number %s), which must keep applying to its output",
              d.location(), d.dataSequenceNumber(), startingSequenceNumber);
        }
      });
    }
    ops.commit(base, metadata);
  }

  private void forEachDelete(
      Snapshot snapshot, TableMetadata metadata, java.util.function.Consumer<DeleteFile> action) {
    for (ManifestFile manifest : snapshot.deleteManifests(ops.io())) {
      try (ManifestReader<DeleteFile> reader =
          ManifestFiles.readDeleteManifest(manifest, ops.io(), metadata.specsById())) {
        reader.forEach(action);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  @Override
  public TableMetadata current() {
    return ops.current();
  }

  @Override
  public TableMetadata refresh() {
    return ops.refresh();
  }

  @Override
  public FileIO io() {
    return ops.io();
  }

  @Override
  public EncryptionManager encryption() {
    return ops.encryption();
  }

  @Override
  public String metadataFileLocation(String fileName) {
    return ops.metadataFileLocation(fileName);
  }

  @Override
  public LocationProvider locationProvider() {
    return ops.locationProvider();
  }

  @Override
  public TableOperations temp(TableMetadata uncommittedMetadata) {
    return ops.temp(uncommittedMetadata);
  }

  @Override
  public long newSnapshotId() {
    return ops.newSnapshotId();
  }

  @Override
  public boolean requireStrictCleanup() {
    return ops.requireStrictCleanup();
  }
}
