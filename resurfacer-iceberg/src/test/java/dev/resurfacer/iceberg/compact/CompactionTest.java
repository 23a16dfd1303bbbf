package dev.resurfacer.iceberg.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.compact.CompactionResult.Status;
import dev.resurfacer.iceberg.health.HealthInspector;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class CompactionTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "category", Types.StringType.get()),
      Types.NestedField.optional(3, "amount", Types.DoubleType.get()));

  @TempDir
  Path dir;

  JdbcCatalog catalog;

  @BeforeEach
  void setUp() {
    catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
  }

  @ParameterizedTest
  @EnumSource(
      value = CompactionOptions.Runner.class,
      names = {"DUCKDB", "GENERIC"})
  void appliesPositionAndEqualityDeletesAndCommitsAReplace(CompactionOptions.Runner runner) {
    Table table = catalog
        .buildTable(TableIdentifier.of("db", "t"), SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).identity("category").build())
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();
    List<DataFile> files = new ArrayList<>();
    for (int f = 0; f < 6; f++) {
      DataFile file = TableWrites.writeData(table, rows(f * 100, 100, f % 2 == 0 ? "a" : "b"))
          .get(0);
      table.newAppend().appendFile(file).commit();
      files.add(file);
    }
    DeleteFile pos = TableWrites.writePositionDeletes(
        table,
        table.spec(),
        files.get(0).partition(),
        List.of(
            new Position(files.get(0).location(), 0),
            new Position(files.get(0).location(), 5),
            new Position(files.get(2).location(), 99)));
    Schema idOnly = SCHEMA.select("id");
    DeleteFile eq = TableWrites.writeEqualityDeletes(
        table,
        table.spec(),
        files.get(1).partition(),
        idOnly,
        List.of(id(idOnly, 100), id(idOnly, 101), id(idOnly, 555)));
    table.newRowDelta().addDeletes(pos).addDeletes(eq).commit();
    table.refresh();
    List<String> before = Rows.sortedStrings(table);
    long snapshotsBefore = HealthInspector.inspect("db.t", table).history().snapshots();

    CompactionResult result = Compaction.execute(Compaction.plan(
        table, CompactionOptions.defaults().withRunner(runner).withOption("min-input-files", "2")));

    table.refresh();
    assertThat(result.groups())
        .extracting(CompactionResult.Group::status)
        .containsOnly(Status.COMMITTED);
    assertThat(result.groups()).hasSize(2);
    assertThat(result.rewrittenFiles()).isEqualTo(6);
    assertThat(result.addedFiles()).isEqualTo(2);
    assertThat(result.rows()).isEqualTo(600 - 3 - 3);
    assertThat(result.deleteFilesApplied()).isEqualTo(2);
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    assertThat(table.currentSnapshot().operation()).isEqualTo("replace");
    assertThat(HealthInspector.inspect("db.t", table).history().snapshots())
        .isEqualTo(snapshotsBefore + 1);
    assertThat(HealthInspector.inspect("db.t", table).data().dataFiles()).isEqualTo(2);
    // both delete files now apply to nothing: they are reported as dangling, still in the table
    assertThat(result.danglingDeleteFiles()).isEqualTo(2);
    // replaced files stay on disk until expiry removes them
    files.forEach(f -> assertThat(new File(f.location())).exists());
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(ints = {1, 2, 3})
  void everyFormatVersionCompactsAndAWhereFilterSelectsOnlyMatchingFiles(int formatVersion) {
    Table table = catalog
        .buildTable(TableIdentifier.of("db", "v" + formatVersion), SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).identity("category").build())
        .withProperty(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion))
        .create();
    for (int f = 0; f < 6; f++) {
      table
          .newAppend()
          .appendFile(TableWrites.writeData(table, rows(f * 100, 100, f % 2 == 0 ? "a" : "b"))
              .get(0))
          .commit();
    }
    table.refresh();
    List<String> before = Rows.sortedStrings(table);

    CompactionResult result = Compaction.execute(Compaction.plan(
        table,
        CompactionOptions.defaults()
            .withOption("min-input-files", "2")
            .withFilter(dev.resurfacer.iceberg.filter.FilterParser.parse("category = 'b'"))));

    assertThat(result.groups()).singleElement().satisfies(g -> {
      assertThat(g.partition()).isEqualTo("category=b");
      assertThat(g.status()).as(g.message()).isEqualTo(Status.COMMITTED);
    });
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    // partition a keeps its three files, b has one
    assertThat(HealthInspector.inspect("db.t", table).data().dataFiles()).isEqualTo(4);
    assertThat(table.currentSnapshot().operation()).isEqualTo("replace");
  }

  /** Each skipped file is counted under its own cause, and the plan names the cause that held. */
  @org.junit.jupiter.api.Test
  void theSkipReasonNamesTheRealCause() {
    Table table = catalog
        .buildTable(TableIdentifier.of("db", "skips"), SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).identity("category").build())
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();
    for (int f = 0; f < 3; f++) {
      table
          .newAppend()
          .appendFile(TableWrites.writeData(table, rows(f * 10, 10, "a")).get(0))
          .commit();
    }
    table
        .newAppend()
        .appendFile(TableWrites.writeData(table, rows(100, 10, "b")).get(0))
        .commit();

    // three 1 KB files in a and one in b: small, but fewer than min-input-files (5) per partition
    CompactionPlan small = Compaction.plan(table, CompactionOptions.defaults()).readout();
    assertThat(small.groups()).isEmpty();
    assertThat(small.skippedFiles()).isEqualTo(4);
    assertThat(small.skippedBecause())
        .startsWith("4 file(s) (")
        .contains("worth rewriting, in 2 partition(s) with fewer than"
            + " min-input-files (5) such files and less than the target size (512 MB) together")
        .doesNotContain("within the size range");

    // min-input-files 3 takes partition a; b's single file stays for the same reason
    CompactionPlan three = Compaction.plan(
            table, CompactionOptions.defaults().withOption("min-input-files", "3"))
        .readout();
    assertThat(three.groups())
        .singleElement()
        .satisfies(g -> assertThat(g.partition()).isEqualTo("category=a"));
    assertThat(three.skippedBecause())
        .startsWith("1 file(s) (")
        .contains("in 1 partition(s) with fewer than min-input-files (3)");

    // a target the files already meet: within the size range
    long size =
        table.currentSnapshot().addedDataFiles(table.io()).iterator().next().fileSizeInBytes();
    CompactionPlan inRange = Compaction.plan(
            table,
            CompactionOptions.defaults().withOption("target-file-size-bytes", Long.toString(size)))
        .readout();
    assertThat(inRange.skippedBecause())
        .contains("within the size range (" + (long) (size * 0.75) + ".." + (long) (size * 1.8)
            + " bytes) with too few deletes to rewrite")
        .doesNotContain("min-input-files");

    // --partition: the rest is outside it
    CompactionPlan onlyB = Compaction.plan(
            table,
            CompactionOptions.defaults()
                .withOption("min-input-files", "1")
                .withPartition("category=b"))
        .readout();
    assertThat(onlyB.groups()).isEmpty();
    assertThat(onlyB.skippedBecause())
        .contains("3 file(s) outside --partition category=b")
        .contains("1 file(s) (")
        .contains("fewer than two (a lone file is not rewritten for its size) such files");
  }

  @Test
  void executingAPlanRewritesTheGroupsThePlanShowed() {
    Table table = catalog
        .buildTable(TableIdentifier.of("db", "planned"), SCHEMA)
        .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).identity("category").build())
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();
    for (int f = 0; f < 3; f++) {
      table
          .newAppend()
          .appendFile(TableWrites.writeData(table, rows(f * 10, 10, "a")).get(0))
          .commit();
    }
    for (int f = 0; f < 2; f++) {
      table
          .newAppend()
          .appendFile(TableWrites.writeData(table, rows(100 + f * 10, 10, "b")).get(0))
          .commit();
    }
    table
        .newAppend()
        .appendFile(TableWrites.writeData(table, rows(200, 10, "c")).get(0))
        .commit();
    List<String> before = Rows.sortedStrings(table);
    long snapshot = table.currentSnapshot().snapshotId();

    PlannedCompaction plan =
        Compaction.plan(table, CompactionOptions.defaults().withOption("min-input-files", "2"));
    table.refresh();
    assertThat(table.currentSnapshot().snapshotId())
        .as("planning changes nothing")
        .isEqualTo(snapshot);
    List<String> planned =
        plan.readout().groups().stream().map(CompactionPlan.Group::partition).toList();
    assertThat(planned).containsExactlyInAnyOrder("category=a", "category=b");

    CompactionResult done = Compaction.execute(plan);

    assertThat(done.groups())
        .extracting(CompactionResult.Group::partition)
        .containsExactlyElementsOf(planned);
    assertThat(done.groups())
        .extracting(CompactionResult.Group::status)
        .containsOnly(CompactionResult.Status.COMMITTED);
    assertThat(done.rewrittenFiles()).isEqualTo(plan.readout().filesToRewrite()).isEqualTo(5);
    assertThat(done.rewrittenBytes()).isEqualTo(plan.readout().bytesToRewrite());
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    assertThat(table.currentSnapshot().addedDataFiles(table.io())).hasSize(2);
  }

  static Record id(Schema schema, long id) {
    Record r = GenericRecord.create(schema);
    r.setField("id", id);
    return r;
  }

  static List<Record> rows(long start, int n, String category) {
    List<Record> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", start + i);
      r.setField("category", category);
      r.setField("amount", (start + i) * 1.5);
      out.add(r);
    }
    return out;
  }
}
