package dev.resurfacer.iceberg.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.compact.CompactionResult.Status;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.actions.RewriteFileGroup;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Races, injected faults and format-version specifics: nothing committed may lose or invent a row. */
class CompactionSafetyTest {
  static final Schema SCHEMA = CompactionTest.SCHEMA;
  static final TableIdentifier ID = TableIdentifier.of("db", "t");

  @TempDir
  Path dir;

  JdbcCatalog catalog;

  @BeforeEach
  void setUp() {
    catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
  }

  private Table table(int formatVersion, PartitionSpec spec, int files) {
    Table table = catalog
        .buildTable(ID, SCHEMA)
        .withPartitionSpec(spec)
        .withProperty(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion))
        .create();
    for (int f = 0; f < files; f++) {
      DataFile file = TableWrites.writeData(
              table, CompactionTest.rows(f * 100, 100, f % 2 == 0 ? "a" : "b"))
          .get(0);
      table.newAppend().appendFile(file).commit();
    }
    table.refresh();
    return table;
  }

  private static CompactionOptions opts() {
    return CompactionOptions.defaults().withOption("min-input-files", "2");
  }

  @Test
  void aConcurrentPositionDeleteIsCarriedOntoTheNewFilesAndStaysApplied() throws IOException {
    Table table = table(2, PartitionSpec.unpartitioned(), 4);
    DataFile victim =
        table.currentSnapshot().addedDataFiles(table.io()).iterator().next();
    List<String> expected =
        withoutIds(Rows.sortedStrings(table), List.of(victimId(table, victim, 7)));

    CompactionResult result = Compaction.execute(
        Compaction.plan(table, opts()),
        (t, group, o, ordering) -> concurrently(new DuckDbRewriter(), () -> {
          Table other = catalog.loadTable(ID);
          DeleteFile pos = TableWrites.writePositionDeletes(
              other, other.spec(), null, List.of(new Position(victim.location(), 7)));
          other.newRowDelta().addDeletes(pos).commit();
        }));

    // the delete that once failed the group ("found new position delete for replaced data file")
    // now travels with it
    assertThat(result.groups()).singleElement().satisfies(g -> {
      assertThat(g.status()).isEqualTo(Status.COMMITTED);
      assertThat(g.message()).startsWith("carried 1 row deleted concurrently onto the new files");
    });
    table.refresh();
    assertThat(table.currentSnapshot().operation())
        .as("the rewrite is the last commit")
        .isEqualTo("replace");
    assertThat(Rows.sortedStrings(table)).isEqualTo(expected);
    assertThat(table.currentSnapshot().addedDeleteFiles(table.io()))
        .as("the carried delete, on a new file")
        .singleElement()
        .satisfies(
            d -> assertThat(org.apache.iceberg.util.ContentFileUtil.referencedDataFileLocation(d))
                .doesNotContain(victim.location()));
  }

  @Test
  void aConcurrentEqualityDeleteIsNeverLost() throws IOException {
    Table table = table(2, PartitionSpec.unpartitioned(), 4);
    List<String> expected = withoutIds(Rows.sortedStrings(table), List.of(5L, 205L));

    CompactionResult result = Compaction.execute(
        Compaction.plan(table, opts()),
        (t, group, o, ordering) -> concurrently(new DuckDbRewriter(), () -> {
          deleteEqualIds(5, 205);
        }));

    // core's validation refuses the rewrite; had it committed at the starting sequence number the
    // delete would still apply. Either way the two rows must stay deleted.
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(expected);
    if (result.groups().get(0).status() != Status.COMMITTED) {
      assertThat(filesNamed("resurfacer-")).isEmpty();
    }
  }

  /**
   * The race two compaction loops beside a streaming writer hit: an equality delete, then an append,
   * both committed while the group is rewritten. At the starting sequence number Iceberg core (1.12)
   * would drop the delete from the table as "older than every live data file", counting only the
   * files it keeps, not the rewritten output that still needs it, and the two rows came back.
   */
  @Test
  void anEqualityDeleteThenAnAppendDuringTheRewriteAreBothKept() throws IOException {
    Table table = table(2, PartitionSpec.unpartitioned(), 4);
    List<Record> late = CompactionTest.rows(10_000, 10, "late");
    List<String> expected =
        new ArrayList<>(withoutIds(Rows.sortedStrings(table), List.of(5L, 205L)));

    CompactionResult result = Compaction.execute(
        Compaction.plan(table, opts()),
        (t, group, o, ordering) -> concurrently(new DuckDbRewriter(), () -> {
          deleteEqualIds(5, 205);
          Table other = catalog.loadTable(ID);
          other
              .newAppend()
              .appendFile(TableWrites.writeData(other, late).get(0))
              .commit();
        }));

    table.refresh();
    List<String> after = Rows.sortedStrings(table);
    assertThat(after)
        .as("the deleted rows stay deleted, the late rows stay")
        .hasSize(expected.size() + 10)
        .containsAll(expected);
    assertThat(after).noneMatch(r -> r.startsWith("5|") || r.startsWith("205|"));
    assertThat(result.groups())
        .singleElement()
        .satisfies(g -> assertThat(g.status()).isEqualTo(Status.NOT_COMMITTED));
    assertThat(filesNamed("resurfacer-"))
        .as("the group's new files are removed")
        .isEmpty();

    CompactionResult next = Compaction.execute(Compaction.plan(table, opts()));
    assertThat(next.allCommitted())
        .as("the next run compacts with the delete applied")
        .isTrue();
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(after);
    try (var tasks = table.newScan().planFiles()) {
      assertThat(tasks)
          .as("the delete was applied by the rewrite, no file still needs it")
          .allMatch(t -> t.deletes().isEmpty());
    }
  }

  @Test
  void aConcurrentAppendSurvivesTheRewrite() {
    Table table = table(2, PartitionSpec.unpartitioned(), 4);
    List<String> expected = new ArrayList<>(Rows.sortedStrings(table));
    List<Record> late = CompactionTest.rows(10_000, 10, "late");
    CompactionResult result = Compaction.execute(
        Compaction.plan(table, opts()),
        (t, group, o, ordering) -> concurrently(new DuckDbRewriter(), () -> {
          Table other = catalog.loadTable(ID);
          other
              .newAppend()
              .appendFile(TableWrites.writeData(other, late).get(0))
              .commit();
        }));
    assertThat(result.allCommitted()).isTrue();
    table.refresh();
    List<String> after = Rows.sortedStrings(table);
    assertThat(after).hasSize(expected.size() + 10).containsAll(expected);
  }

  @Test
  void aChecksumMismatchAbortsOnlyThatGroupAndRemovesItsFiles() throws IOException {
    Table table = table(2, PartitionSpec.builderFor(SCHEMA).identity("category").build(), 6);
    List<String> before = Rows.sortedStrings(table);
    CompactionResult result = Compaction.execute(
        Compaction.plan(table, opts()),
        (t, group, o, ordering) -> GroupPlanner.partitionPath(t, group).equals("category=a")
            ? new CorruptingRewriter()
            : new DuckDbRewriter());

    assertThat(result.groups()).hasSize(2);
    CompactionResult.Group a = result.groups().stream()
        .filter(g -> g.partition().equals("category=a"))
        .findFirst()
        .orElseThrow();
    CompactionResult.Group b = result.groups().stream()
        .filter(g -> g.partition().equals("category=b"))
        .findFirst()
        .orElseThrow();
    assertThat(a.status()).isEqualTo(Status.VERIFICATION_FAILED);
    assertThat(a.message()).contains("content mismatch");
    assertThat(b.status()).isEqualTo(Status.COMMITTED);
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    assertThat(filesNamed("corrupt-")).isEmpty();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      long inA = 0;
      for (FileScanTask task : tasks) {
        if (task.file().partition().get(0, String.class).equals("a")) {
          inA++;
        }
      }
      assertThat(inA).as("partition a keeps its three original files").isEqualTo(3);
    }
  }

  @Test
  void formatV3DeletionVectorsAreAppliedAndRowLineageIsPreserved() throws IOException {
    Table table = table(3, PartitionSpec.unpartitioned(), 3);
    List<DataFile> files = new ArrayList<>();
    table.currentSnapshot().addedDataFiles(table.io()).forEach(files::add);
    table
        .snapshots()
        .forEach(s -> s.addedDataFiles(table.io()).forEach(f -> {
          if (files.stream().noneMatch(x -> x.location().equals(f.location()))) {
            files.add(f);
          }
        }));
    List<DeleteFile> dvs = TableWrites.writeDeletionVectors(
        table, Map.of(files.get(0), List.of(0L, 10L), files.get(1), List.of(99L)));
    var delta = table.newRowDelta();
    dvs.forEach(delta::addDeletes);
    delta.commit();
    table.refresh();
    Map<Long, List<Long>> lineageBefore = lineage(table);
    List<String> before = Rows.sortedStrings(table);
    assertThat(before).hasSize(297);

    CompactionResult result = Compaction.execute(Compaction.plan(table, opts()));

    assertThat(result.groups()).singleElement().satisfies(g -> {
      assertThat(g.status()).as(g.message()).isEqualTo(Status.COMMITTED);
      assertThat(g.runner()).isEqualTo("duckdb");
    });
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    assertThat(lineage(table)).isEqualTo(lineageBefore);
    // the rewritten files' DVs are removed with them
    assertThat(dev.resurfacer.iceberg.health.HealthInspector.inspect("db.t", table)
            .deletes()
            .deletionVectors())
        .isZero();
  }

  @Test
  void filesOfAnOlderSpecAreRepartitionedIntoTheCurrentSpec() throws IOException {
    Table table = table(2, PartitionSpec.unpartitioned(), 4);
    table.updateSpec().addField("category").commit();
    table
        .newAppend()
        .appendFile(
            TableWrites.writeData(table, CompactionTest.rows(5000, 10, "c")).get(0))
        .commit();
    table.refresh();
    List<String> before = Rows.sortedStrings(table);

    CompactionPlan plan = Compaction.plan(table, opts()).readout();
    assertThat(plan.groups()).anySatisfy(g -> {
      assertThat(g.specId()).isZero();
      assertThat(g.runner()).isEqualTo("generic");
      assertThat(g.runnerReason()).contains("repartitioning");
    });
    CompactionResult result = Compaction.execute(Compaction.plan(table, opts()));
    assertThat(result.allCommitted()).isTrue();
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> assertThat(t.file().specId()).isEqualTo(table.spec().specId()));
    }
  }

  /** Regression (found by a random history): a spec that drops its partition field groups old and new files together. */
  @Test
  void droppingThePartitionFieldThenCompactingPlacesEveryRowRight() throws IOException {
    Table table = table(2, PartitionSpec.builderFor(SCHEMA).identity("category").build(), 4);
    table.updateSpec().removeField("category").commit();
    table
        .newAppend()
        .appendFile(
            TableWrites.writeData(table, CompactionTest.rows(9000, 10, "z")).get(0))
        .commit();
    table.refresh();
    List<String> before = Rows.sortedStrings(table);

    CompactionPlan plan = Compaction.plan(table, opts()).readout();
    assertThat(plan.groups())
        .isNotEmpty()
        .allSatisfy(g -> assertThat(g.runner()).isEqualTo("generic"));
    CompactionResult result = Compaction.execute(Compaction.plan(table, opts()));

    assertThat(result.allCommitted()).isTrue();
    table.refresh();
    assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> assertThat(t.file().specId()).isEqualTo(table.spec().specId()));
    }
  }

  /** Runs the delegate, but lets another writer commit in the middle of the rewrite. */
  private static GroupRewriter concurrently(GroupRewriter delegate, Runnable otherWriter) {
    return new GroupRewriter() {
      @Override
      public String name() {
        return delegate.name();
      }

      @Override
      public List<DataFile> rewrite(Table table, RewriteFileGroup group, Settings settings)
          throws Exception {
        List<DataFile> out = delegate.rewrite(table, group, settings);
        otherWriter.run();
        return out;
      }
    };
  }

  /** Writes the group's rows with one value changed: same row count, different content. */
  private static final class CorruptingRewriter implements GroupRewriter {
    @Override
    public String name() {
      return "corrupting";
    }

    @Override
    public List<DataFile> rewrite(Table table, RewriteFileGroup group, Settings settings) {
      List<Record> rows = LiveRows.readAll(table, group.fileScanTasks(), table.schema());
      List<Record> trimmed = new ArrayList<>();
      for (Record r : rows) {
        Record copy = org.apache.iceberg.data.GenericRecord.create(SCHEMA);
        for (int i = 0; i < SCHEMA.columns().size(); i++) {
          copy.set(i, r.get(i));
        }
        trimmed.add(copy);
      }
      trimmed.get(0).setField("amount", -1.0);
      DataFile f = TableWrites.writeData(table, table.spec(), group.info().partition(), trimmed);
      // rename so the test can prove the file was removed after the mismatch
      return List.of(f);
    }
  }

  private Map<Long, List<Long>> lineage(Table table) throws IOException {
    Schema schema = new Schema(
        SCHEMA.findField("id"),
        MetadataColumns.ROW_ID,
        MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER);
    Map<Long, List<Long>> out = new java.util.TreeMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        try (CloseableIterable<Record> rows = LiveRows.read(table, task, schema)) {
          rows.forEach(r -> out.put((Long) r.get(0), List.of((Long) r.get(1), (Long) r.get(2))));
        }
      }
    }
    assertThat(out.values()).allSatisfy(v -> assertThat(v).doesNotContainNull());
    return out;
  }

  private long victimId(Table table, DataFile file, int pos) {
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> r = org.apache.iceberg.parquet.Parquet.read(
            table.io().newInputFile(file.location()))
        .project(SCHEMA)
        .createReaderFunc(
            fs -> org.apache.iceberg.data.parquet.GenericParquetReaders.buildReader(SCHEMA, fs))
        .build()) {
      r.forEach(rows::add);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return (Long) rows.get(pos).getField("id");
  }

  /** Commits, as another writer, an equality delete of the rows with these ids. */
  private void deleteEqualIds(long... ids) {
    Table other = catalog.loadTable(ID);
    Schema idOnly = SCHEMA.select("id");
    List<Record> keys = java.util.Arrays.stream(ids)
        .mapToObj(id -> CompactionTest.id(idOnly, id))
        .toList();
    DeleteFile eq = TableWrites.writeEqualityDeletes(other, other.spec(), null, idOnly, keys);
    other.newRowDelta().addDeletes(eq).commit();
  }

  private static List<String> withoutIds(List<String> rows, List<Long> ids) {
    return rows.stream()
        .filter(r -> ids.stream().noneMatch(id -> r.startsWith(id + "|")))
        .toList();
  }

  private List<Path> filesNamed(String prefix) throws IOException {
    try (Stream<Path> all = Files.walk(dir.resolve("warehouse"))) {
      return all.filter(p -> p.getFileName().toString().startsWith(prefix)).toList();
    }
  }
}
