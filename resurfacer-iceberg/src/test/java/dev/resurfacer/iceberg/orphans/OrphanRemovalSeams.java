package dev.resurfacer.iceberg.orphans;

import java.time.Clock;
import org.apache.iceberg.io.FileIO;

/** For tests of any package: sets {@link OrphanRemoval}'s package-private seam (a faulty FileIO, a later clock). */
public final class OrphanRemovalSeams {
  private OrphanRemovalSeams() {}

  /** The age guard measured against {@code clock}. */
  public static OrphanRemoval clock(OrphanRemoval removal, Clock clock) {
    return removal.seam(new OrphanRemoval.Seam(removal.seam.io(), clock));
  }

  /** Lists, reads metadata and deletes through {@code io} (its own listing, even on local disk). */
  public static OrphanRemoval io(OrphanRemoval removal, FileIO io) {
    return removal.seam(new OrphanRemoval.Seam(io, removal.seam.clock()));
  }
}
