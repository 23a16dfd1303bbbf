package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.iceberg.metadata.MetadataWalker;
import dev.resurfacer.storage.StoredFile;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.io.FileIO;

/**
 * What {@link CandidateSearch} found, fenced and ready to act on: the orphans (in the ledger) and what the
 * {@link Sweeper} needs to re-read the metadata and delete or move them. A preview reports {@link #found()};
 * an acting run reports {@link #acted}. Closing it frees the ledger.
 *
 * @param after the metadata the references were read from; the sweeper refuses if a later one references a candidate
 * @param now the run's clock reading, that ages and the quarantine's run id are taken from
 * @param found what a preview reports: nothing removed
 */
record OrphanPlan(
    String name,
    TableOperations ops,
    FileIO io,
    TableMetadata after,
    MetadataWalker walker,
    StoredFile.Resolver resolver,
    Quarantine holding,
    Ledger ledger,
    long now,
    OrphanReport found)
    implements AutoCloseable {

  /** The report of a run that acted: what the plan found, and what was removed. */
  OrphanReport acted(OrphanReport.Removed removed) {
    return new OrphanReport(
        found.table(),
        true,
        found.guard(),
        found.census(),
        removed,
        found.references(),
        found.fenced(),
        found.orphans(),
        found.orphansTruncated(),
        found.warnings(),
        found.listing());
  }

  @Override
  public void close() {
    ledger.close();
  }
}
