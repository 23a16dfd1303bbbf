package dev.resurfacer.iceberg.orphans;

import java.io.OutputStream;
import java.time.Clock;
import java.time.Duration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/** What the cloud storage alias attacks do to a table: plant a stray file, sweep two hours later with a one-hour guard. */
final class AliasAttackSweeps {
  private AliasAttackSweeps() {}

  static OrphanReport sweep(Catalog catalog, Table t) {
    TableIdentifier id =
        TableIdentifier.of("db", t.name().substring(t.name().lastIndexOf('.') + 1));
    return OrphanRemovalSeams.clock(
            OrphanRemoval.of(catalog, id, t).olderThan(Duration.ofHours(1)),
            Clock.offset(Clock.systemUTC(), Duration.ofHours(2)))
        .execute();
  }

  static String stray(Table t) throws Exception {
    String stray = t.locationProvider().newDataLocation("stray-" + System.nanoTime() + ".parquet");
    try (OutputStream out = t.io().newOutputFile(stray).create()) {
      out.write(new byte[] {1, 2, 3});
    }
    return stray;
  }

  static DataFile firstFile(Table t) {
    return t.currentSnapshot().addedDataFiles(t.io()).iterator().next();
  }
}
