package dev.resurfacer.iceberg.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.health.HealthInspector;
import dev.resurfacer.iceberg.health.TableHealth;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.datasketches.memory.Memory;
import org.apache.datasketches.theta.CompactSketch;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionStatistics;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.puffin.BlobMetadata;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinReader;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.Pair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StatisticsTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "day", Types.DateType.get()),
      Types.NestedField.optional(3, "name", Types.StringType.get()),
      Types.NestedField.optional(4, "tags", Types.ListType.ofOptional(5, Types.StringType.get())));

  @TempDir
  Path dir;

  private Table table() {
    var catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
    return catalog
        .buildTable(TableIdentifier.of("db", "t"), SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).identity("day").build())
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();
  }

  /** 20,000 rows, ids distinct, 4 days, names repeating every 1,500 rows (nulls among them); then deletes. */
  private static void fill(Table table) {
    List<Record> rows = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", (long) i);
      r.setField("day", LocalDate.of(2026, 1, 1).plusDays(i % 4));
      r.setField("name", i % 10 == 0 ? null : "n" + (i % 1_500));
      r.setField("tags", List.of("x"));
      rows.add(r);
    }
    var append = table.newAppend();
    List<DataFile> files = TableWrites.writeData(table, rows);
    files.forEach(append::appendFile);
    append.commit();
    List<Position> gone = new ArrayList<>();
    for (int p = 0; p < 2_000; p++) {
      gone.add(new Position(files.get(0).location(), p));
    }
    table
        .newRowDelta()
        .addDeletes(
            TableWrites.writePositionDeletes(table, table.spec(), files.get(0).partition(), gone))
        .commit();
    table.refresh();
  }

  @Test
  void ndvSketchesLandInAPuffinFileOnTheCurrentSnapshotWithinTheSketchError() throws Exception {
    Table table = table();
    fill(table);
    List<Record> live = Rows.read(table);
    Map<String, Set<Object>> exact = Map.of(
        "id", live.stream().map(r -> r.getField("id")).collect(Collectors.toSet()),
        "day", live.stream().map(r -> r.getField("day")).collect(Collectors.toSet()),
        "name",
            live.stream()
                .map(r -> r.getField("name"))
                .filter(java.util.Objects::nonNull)
                .collect(Collectors.toSet()));

    TableStatistics.Result preview = TableStatistics.plan(table, List.of()).preview();
    assertThat(preview.committed()).isFalse();
    assertThat(preview.columns())
        .extracting(TableStatistics.ColumnNdv::column)
        .containsExactly("id", "day", "name");
    assertThat(table.statisticsFiles()).isEmpty();

    TableStatistics.Result r = TableStatistics.execute(TableStatistics.plan(table, List.of()));
    assertThat(r.committed()).isTrue();
    table.refresh();
    assertThat(r.snapshotId()).isEqualTo(table.currentSnapshot().snapshotId());
    StatisticsFile file = table.statisticsFiles().get(0);
    assertThat(file.snapshotId()).isEqualTo(r.snapshotId());
    assertThat(Files.size(Path.of(java.net.URI.create(file.path()).getPath())))
        .isEqualTo(file.fileSizeInBytes());

    try (PuffinReader reader = Puffin.read(table.io().newInputFile(file.path()))
        .withFileSize(file.fileSizeInBytes())
        .build()) {
      List<BlobMetadata> blobs = reader.fileMetadata().blobs();
      assertThat(blobs).hasSize(3).allSatisfy(b -> {
        assertThat(b.type()).isEqualTo("apache-datasketches-theta-v1");
        assertThat(b.snapshotId()).isEqualTo(r.snapshotId());
        assertThat(b.compressionCodec()).isEqualTo("zstd");
      });
      for (Pair<BlobMetadata, ByteBuffer> blob : reader.readAll(blobs)) {
        String column = SCHEMA.findColumnName(blob.first().inputFields().get(0));
        ByteBuffer data = blob.second();
        byte[] bytes = new byte[data.remaining()];
        data.get(bytes);
        double estimate = CompactSketch.wrap(Memory.wrap(bytes)).getEstimate();
        long truth = exact.get(column).size();
        // 4096 nominal entries: relative standard error ~1.6%; 3 sigma
        assertThat(Math.abs(estimate - truth))
            .as(column)
            .isLessThanOrEqualTo(Math.max(0.05 * truth, 0.5));
        assertThat(blob.first().properties()).containsEntry("ndv", Long.toString((long) estimate));
      }
    }
    assertThat(exact.get("id")).hasSize(18_000);

    TableHealth health = HealthInspector.inspect("db.t", table);
    assertThat(health.statistics()).singleElement().satisfies(s -> {
      assertThat(s.kind()).isEqualTo("table");
      assertThat(s.current()).isTrue();
      assertThat(s.blobs()).hasSize(3).allMatch(b -> b.startsWith("apache-datasketches-theta-v1"));
    });
  }

  @Test
  void columnsAreCheckedBeforeAnythingIsRead() {
    Table table = table();
    fill(table);
    assertThatThrownBy(() -> TableStatistics.plan(table, List.of("nope")))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("has no column 'nope'");
    assertThatThrownBy(() -> TableStatistics.plan(table, List.of("tags")))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("primitive columns only");
    TableStatistics.Result one =
        TableStatistics.execute(TableStatistics.plan(table, List.of("day")));
    assertThat(one.columns()).singleElement().satisfies(c -> assertThat(c.ndv()).isEqualTo(4));
  }

  @Test
  void partitionStatisticsFromCoreMatchTheTable() throws Exception {
    Table table = table();
    fill(table);
    assertThat(PartitionStats.plan(table).preview().committed()).isFalse();
    assertThat(table.partitionStatisticsFiles()).isEmpty();
    PartitionStats.Result r = PartitionStats.execute(PartitionStats.plan(table));
    assertThat(r.committed()).isTrue();
    table.refresh();
    assertThat(table.partitionStatisticsFiles())
        .singleElement()
        .satisfies(f -> assertThat(f.snapshotId()).isEqualTo(r.snapshotId()));
    long records = 0;
    long positionDeletes = 0;
    Set<Object> partitions = new HashSet<>();
    try (CloseableIterable<PartitionStatistics> stats =
        table.newPartitionStatisticsScan().scan()) {
      for (PartitionStatistics s : stats) {
        partitions.add(
            s.get(PartitionStatistics.PARTITION_POSITION, Object.class).toString());
        records += s.get(PartitionStatistics.DATA_RECORD_COUNT_POSITION, Long.class);
        positionDeletes +=
            s.get(PartitionStatistics.POSITION_DELETE_RECORD_COUNT_POSITION, Long.class);
      }
    }
    assertThat(partitions).hasSize(4);
    assertThat(records).isEqualTo(20_000);
    assertThat(positionDeletes).isEqualTo(2_000);
    assertThat(PartitionStats.execute(PartitionStats.plan(table)).alreadyComputed())
        .isTrue();
  }
}
