package dev.resurfacer.iceberg.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CondensingTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "region", Types.StringType.get()),
      Types.NestedField.optional(3, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(4, "ts2", Types.TimestampType.withoutZone()));

  @TempDir
  Path dir;

  JdbcCatalog catalog;

  @BeforeEach
  void setUp() {
    catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
  }

  private Table dailyTable() {
    return dailyTable(2);
  }

  private Table dailyTable(int formatVersion) {
    Table table = catalog
        .buildTable(TableIdentifier.of("db", "events"), SCHEMA)
        .withPartitionSpec(
            PartitionSpec.builderFor(SCHEMA).day("ts").identity("region").build())
        .withProperty(TableProperties.FORMAT_VERSION, String.valueOf(formatVersion))
        .create();
    long id = 0;
    List<LocalDate> days = new ArrayList<>(
        List.of(LocalDate.of(2025, 1, 5), LocalDate.of(2025, 1, 20), LocalDate.of(2025, 2, 3)));
    days.add(LocalDate.now(java.time.ZoneOffset.UTC).minusDays(1));
    for (LocalDate day : days) {
      for (String region : List.of("eu", "us")) {
        for (int f = 0; f < 2; f++) {
          List<Record> rows = new ArrayList<>();
          for (int i = 0; i < 20; i++) {
            Record r = GenericRecord.create(SCHEMA);
            r.setField("id", id++);
            r.setField("region", region);
            r.setField("ts", day.atStartOfDay().plusMinutes(i * 37L));
            rows.add(r);
          }
          table
              .newAppend()
              .appendFile(TableWrites.writeData(table, rows).get(0))
              .commit();
        }
      }
    }
    table.refresh();
    return table;
  }

  /**
   * A writer deletes rows of the fine files while their coarse partition is rewritten (after the
   * rewrite is verified, before it commits): condense carries the deletes onto the coarse files
   * (a position-delete file on v2, a deletion vector on v3) instead of failing, and the table then
   * holds exactly the rows of the writer's snapshot.
   */
  @org.junit.jupiter.params.ParameterizedTest(name = "format v{0}")
  @org.junit.jupiter.params.provider.ValueSource(ints = {2, 3})
  void deletesCommittedDuringACondenseAreCarriedOntoTheCoarseFiles(int version) throws IOException {
    Table table = dailyTable(version);
    long rowsBefore = Rows.read(table).size();
    List<List<String>> writers = new ArrayList<>();
    Condensing.CondenseResult result = Condensing.execute(
        Condensing.plan(
            table,
            Condensing.Granularity.MONTH,
            Duration.ofDays(90),
            CompactionOptions.defaults().withScratchDir(dir.resolve("scratch"))),
        group -> {
          // two rows of the first fine file, one of the second, deleted by position as a
          // merge-on-read writer deletes them
          List<DataFile> fine = new ArrayList<>(group.rewrittenFiles());
          fine.sort(java.util.Comparator.comparing(DataFile::location));
          table.refresh();
          var rowDelta =
              table.newRowDelta().validateFromSnapshot(table.currentSnapshot().snapshotId());
          if (version >= 3) {
            TableWrites.writeDeletionVectors(
                    table, java.util.Map.of(fine.get(0), List.of(2L, 7L), fine.get(1), List.of(0L)))
                .forEach(rowDelta::addDeletes);
          } else {
            rowDelta.addDeletes(TableWrites.writePositionDeletes(
                table,
                table.specs().get(fine.get(0).specId()),
                fine.get(0).partition(),
                List.of(
                    new TableWrites.Position(fine.get(0).location(), 2),
                    new TableWrites.Position(fine.get(0).location(), 7))));
            rowDelta.addDeletes(TableWrites.writePositionDeletes(
                table,
                table.specs().get(fine.get(1).specId()),
                fine.get(1).partition(),
                List.of(new TableWrites.Position(fine.get(1).location(), 0))));
          }
          rowDelta.commit();
          table.refresh();
          writers.add(Rows.sortedStrings(table));
        });

    assertThat(result.partitions()).isNotEmpty().allSatisfy(p -> {
      assertThat(p.status()).as("%s: %s", p.partition(), p.message()).isEqualTo("committed");
      assertThat(p.message()).startsWith("carried 3 rows deleted concurrently onto the new files");
    });
    table.refresh();
    assertThat(Rows.sortedStrings(table))
        .as("the writer's last snapshot, every delete applied once")
        .isEqualTo(writers.get(writers.size() - 1));
    assertThat(Rows.read(table))
        .hasSize((int) rowsBefore - 3 * result.partitions().size());
    dev.resurfacer.iceberg.testing.Invariants.nothingMissing(table);
  }

  @Test
  void agedDaysMoveIntoAMonthSpecThatIsNotTheDefault() throws IOException {
    Table table = dailyTable();
    int fineSpec = table.spec().specId();
    List<String> before = Rows.sortedStrings(table);
    String metadataBefore =
        ((HasTableOperations) table).operations().current().metadataFileLocation();

    Condensing.CondenseResult preview = Condensing.plan(
            table, Condensing.Granularity.MONTH, Duration.ofDays(90), CompactionOptions.defaults())
        .preview();
    assertThat(preview.partitions())
        .extracting(Condensing.Partition::partition)
        .containsExactlyInAnyOrder(
            "ts_month=2025-01/region=eu",
            "ts_month=2025-01/region=us",
            "ts_month=2025-02/region=eu",
            "ts_month=2025-02/region=us");
    assertThat(preview.partitions())
        .filteredOn(p -> p.partition().startsWith("ts_month=2025-01"))
        .allSatisfy(p -> assertThat(p.files()).isEqualTo(4));
    table.refresh();
    assertThat(((HasTableOperations) table).operations().current().metadataFileLocation())
        .isEqualTo(metadataBefore);
    assertThat(table.specs()).hasSize(1);

    Condensing.CondenseResult result = Condensing.execute(Condensing.plan(
        table, Condensing.Granularity.MONTH, Duration.ofDays(90), CompactionOptions.defaults()));

    assertThat(result.committed()).isTrue();
    assertThat(result.specAdded()).isTrue();
    table.refresh();
    assertThat(table.spec().specId()).as("the fine spec stays the default").isEqualTo(fineSpec);
    assertThat(table.specs()).hasSize(2);
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    long condenseCommits = 0;
    for (Snapshot s : table.snapshots()) {
      if ("condense".equals(s.summary().get(Compaction.SUMMARY_PROPERTY))) {
        condenseCommits++;
        assertThat(s.operation()).isEqualTo("replace");
      }
    }
    assertThat(condenseCommits).as("one commit per output partition").isEqualTo(4);
    assertManifestsHoldOneSpecEach(table);
    List<DataFile> coarseFiles = new ArrayList<>();
    table.newScan().planFiles().forEach(t -> {
      if (t.file().specId() == result.coarseSpecId()) {
        coarseFiles.add(t.file());
      }
    });
    assertThat(coarseFiles).hasSize(4);
    assertThat(coarseFiles)
        .extracting(f -> table.specs().get(f.specId()).partitionToPath(f.partition()))
        .containsExactlyInAnyOrder(
            "ts_month=2025-01/region=eu",
            "ts_month=2025-01/region=us",
            "ts_month=2025-02/region=eu",
            "ts_month=2025-02/region=us");

    // new data keeps landing in the fine spec
    Record late = GenericRecord.create(SCHEMA);
    late.setField("id", 99_999L);
    late.setField("region", "eu");
    late.setField("ts", LocalDateTime.of(2025, 1, 7, 10, 0));
    DataFile lateFile = TableWrites.writeData(table, List.of(late)).get(0);
    assertThat(lateFile.specId()).isEqualTo(fineSpec);
    table.newAppend().appendFile(lateFile).commit();

    // running again reuses the coarse spec and condenses the newly arrived day into it
    Condensing.CondenseResult again = Condensing.execute(Condensing.plan(
        table, Condensing.Granularity.MONTH, Duration.ofDays(90), CompactionOptions.defaults()));
    assertThat(again.specAdded()).isFalse();
    assertThat(again.coarseSpecId()).isEqualTo(result.coarseSpecId());
    assertThat(again.partitions())
        .extracting(Condensing.Partition::partition)
        .containsExactly("ts_month=2025-01/region=eu");
    table.refresh();
    assertThat(table.specs()).hasSize(2);
    assertManifestsHoldOneSpecEach(table);
  }

  /** No time field finer than the target, or two: condensing does not apply, says why and changes nothing. */
  /**
   * Compaction after condensing (as maintain runs them) leaves the condensed files in their coarse
   * spec: core's planner would move them back into the day partitions, and the next condense would
   * gather them again. The plan says why they stay; an explicit output-spec-id still moves them.
   */
  @Test
  void compactionLeavesCondensedFilesWhereCondensePutThem() throws IOException {
    Table table = dailyTable();
    Condensing.CondenseResult r = Condensing.execute(Condensing.plan(
        table, Condensing.Granularity.MONTH, Duration.ofDays(30), CompactionOptions.defaults()));
    assertThat(r.committed()).isTrue();
    table.refresh();
    int coarse = r.coarseSpecId();
    assertThat(Condensing.condensedSpecIds(table)).containsExactly(coarse);
    List<String> rows = Rows.sortedStrings(table);
    long condensedFiles = countFilesOfSpec(table, coarse);
    assertThat(condensedFiles).isPositive();

    CompactionPlan plan = Compaction.plan(
            table, CompactionOptions.defaults().withOption("min-input-files", "2"))
        .readout();
    assertThat(plan.groups())
        .allSatisfy(g -> assertThat(g.specId()).isEqualTo(table.spec().specId()));
    assertThat(plan.skippedBecause()).contains(condensedFiles + " file(s) in a condensed spec");
    CompactionResult done = Compaction.execute(
        Compaction.plan(table, CompactionOptions.defaults().withOption("min-input-files", "2")));
    assertThat(done.allCommitted()).isTrue();
    table.refresh();
    assertThat(countFilesOfSpec(table, coarse)).isEqualTo(condensedFiles);
    assertThat(Rows.sortedStrings(table)).isEqualTo(rows);

    CompactionPlan moving = Compaction.plan(
            table,
            CompactionOptions.defaults()
                .withOption("min-input-files", "2")
                .withOption("output-spec-id", Integer.toString(table.spec().specId())))
        .readout();
    assertThat(moving.filesToRewrite()).isGreaterThanOrEqualTo(condensedFiles);
  }

  private static long countFilesOfSpec(Table table, int specId) throws IOException {
    try (var tasks = table.newScan().planFiles()) {
      long n = 0;
      for (var t : tasks) {
        n += t.file().specId() == specId ? 1 : 0;
      }
      return n;
    }
  }

  @Test
  void ambiguousOrMissingTimeFieldsMeanCondensingDoesNotApply() {
    Table two = catalog
        .buildTable(TableIdentifier.of("db", "two"), SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).day("ts").day("ts2").build())
        .create();
    assertThat(Condensing.execute(Condensing.plan(
                two,
                Condensing.Granularity.MONTH,
                Duration.ofDays(1),
                CompactionOptions.defaults()))
            .doesNotApply())
        .contains("2 time fields finer than month")
        .contains("cannot tell which");
    Table none = catalog
        .buildTable(TableIdentifier.of("db", "none"), SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).identity("region").build())
        .create();
    assertThat(Condensing.execute(Condensing.plan(
                none,
                Condensing.Granularity.YEAR,
                Duration.ofDays(1),
                CompactionOptions.defaults()))
            .doesNotApply())
        .isEqualTo(
            "does not apply: the default spec (region identity) has no time partition finer than year");
    Table monthly = catalog
        .buildTable(TableIdentifier.of("db", "monthly"), SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).month("ts").build())
        .create();
    Condensing.CondenseResult month = Condensing.execute(Condensing.plan(
        monthly, Condensing.Granularity.MONTH, Duration.ofDays(1), CompactionOptions.defaults()));
    assertThat(month.doesNotApply()).contains("no time partition finer than month");
    assertThat(month.partitions()).isEmpty();
    assertThat(month.committed()).isFalse();
    Table flat = catalog.buildTable(TableIdentifier.of("db", "flat"), SCHEMA).create();
    assertThat(Condensing.execute(Condensing.plan(
                flat,
                Condensing.Granularity.MONTH,
                Duration.ofDays(1),
                CompactionOptions.defaults()))
            .doesNotApply())
        .isEqualTo("does not apply: the default spec is unpartitioned");
    for (Table t : List.of(two, none, monthly, flat)) {
      t.refresh();
      assertThat(t.specs()).hasSize(1);
      assertThat(t.currentSnapshot()).isNull();
    }
  }

  @Test
  void coarseningArithmetic() {
    assertThat(Condensing.coarsen(
            "day", (int) LocalDate.of(2025, 2, 28).toEpochDay(), Condensing.Granularity.MONTH))
        .isEqualTo(55 * 12 + 1);
    assertThat(Condensing.coarsen("hour", -1, Condensing.Granularity.DAY)).isEqualTo(-1);
    assertThat(Condensing.coarsen("month", 13, Condensing.Granularity.YEAR)).isEqualTo(1);
    assertThat(Condensing.endDay(Condensing.Granularity.MONTH, 55 * 12))
        .isEqualTo(LocalDate.of(2025, 2, 1).toEpochDay());
  }

  private static void assertManifestsHoldOneSpecEach(Table table) throws IOException {
    for (ManifestFile m : table.currentSnapshot().dataManifests(table.io())) {
      try (ManifestReader<DataFile> reader = ManifestFiles.read(m, table.io(), table.specs())) {
        for (DataFile f : reader) {
          assertThat(f.specId()).as("manifest %s", m.path()).isEqualTo(m.partitionSpecId());
        }
      }
    }
  }
}
