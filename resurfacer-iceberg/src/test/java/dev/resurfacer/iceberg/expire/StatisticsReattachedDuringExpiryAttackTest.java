package dev.resurfacer.iceberg.expire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.GenericBlobMetadata;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.puffin.Blob;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinWriter;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * expire re-reads the table after its commit and deletes only what the table does not reference
 * now ("the race window"). That re-check collected manifest lists, manifests, data and delete files,
 * but no statistics: a statistics file of the expired snapshot that a concurrent commit attached to
 * a retained snapshot in that window was deleted, though the current metadata names it.
 */
class StatisticsReattachedDuringExpiryAttackTest {
  static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
  static final TableIdentifier ID = TableIdentifier.of("db", "t");

  @TempDir
  Path dir;

  JdbcCatalog catalog;

  @BeforeEach
  void open() {
    catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
  }

  @AfterEach
  void close() throws Exception {
    catalog.close();
  }

  static List<Record> rows(long start) {
    GenericRecord r = GenericRecord.create(SCHEMA);
    r.setField("id", start);
    return List.of(r);
  }

  @Test
  void aStatisticsFileReattachedAfterTheCommitIsNotDeleted() throws Exception {
    Table t = catalog
        .buildTable(ID, SCHEMA)
        .withPartitionSpec(PartitionSpec.unpartitioned())
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();
    t.newAppend().appendFile(TableWrites.writeData(t, rows(1)).get(0)).commit();
    long first = t.currentSnapshot().snapshotId();
    OutputFile out = t.io().newOutputFile(t.location() + "/metadata/stats-" + first + ".puffin");
    PuffinWriter writer = Puffin.write(out).createdBy("attack").build();
    try (writer) {
      writer.add(new Blob(
          "apache-datasketches-theta-v1",
          List.of(1),
          first,
          t.currentSnapshot().sequenceNumber(),
          ByteBuffer.wrap(new byte[] {1, 2, 3})));
    }
    StatisticsFile stats = new GenericStatisticsFile(
        first,
        out.location(),
        writer.fileSize(),
        writer.footerSize(),
        GenericBlobMetadata.from(writer.writtenBlobsMetadata()));
    t.updateStatistics().setStatistics(stats).commit();
    t.newAppend().appendFile(TableWrites.writeData(t, rows(2)).get(0)).commit();
    long second = t.currentSnapshot().snapshotId();

    // a stats job reuses the file for the retained snapshot, committing just after expiry's own
    // commit
    boolean[] raced = {false};
    RacingOps ops = new RacingOps(((HasTableOperations) catalog.loadTable(ID)).operations(), () -> {
      catalog
          .loadTable(ID)
          .updateStatistics()
          .setStatistics(new GenericStatisticsFile(
              second,
              stats.path(),
              stats.fileSizeInBytes(),
              stats.fileFooterSizeInBytes(),
              stats.blobMetadata()))
          .commit();
      raced[0] = true;
    });
    Table racing = new BaseTable(ops, "test.db.t");

    SnapshotExpiry.execute(
        SnapshotExpiry.plan("db.t", racing, new ExpireOptions(Duration.ZERO, 1, List.of(), false)));

    assertThat(raced[0]).as("the concurrent commit ran after expiry's commit").isTrue();
    Table now = catalog.loadTable(ID);
    assertThat(now.statisticsFiles()).extracting(StatisticsFile::path).contains(stats.path());
    assertThat(now.io().newInputFile(stats.path()).exists())
        .as("the statistics file the current metadata names")
        .isTrue();
  }

  /** The table's operations, running {@code race} on the second refresh after a commit: after core's cleanup read, before expiry's re-check. */
  static final class RacingOps implements TableOperations {
    private final TableOperations delegate;
    private Runnable race;
    private int refreshesSinceCommit = -1;

    RacingOps(TableOperations delegate, Runnable race) {
      this.delegate = delegate;
      this.race = race;
    }

    @Override
    public TableMetadata current() {
      return delegate.current();
    }

    @Override
    public TableMetadata refresh() {
      if (refreshesSinceCommit >= 0 && ++refreshesSinceCommit == 2 && race != null) {
        Runnable r = race;
        race = null;
        r.run();
      }
      return delegate.refresh();
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
      delegate.commit(base, metadata);
      refreshesSinceCommit = 0;
    }

    @Override
    public FileIO io() {
      return delegate.io();
    }

    @Override
    public String metadataFileLocation(String fileName) {
      return delegate.metadataFileLocation(fileName);
    }

    @Override
    public LocationProvider locationProvider() {
      return delegate.locationProvider();
    }
  }
}
