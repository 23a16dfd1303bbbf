package dev.resurfacer.iceberg.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.compact.CompactionResult.Status;
import dev.resurfacer.iceberg.testing.Rows;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.actions.RewriteFileGroup;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The content digest against the faults a rewrite could make: each runner's real output, changed
 * after it is written (one -0.0 flipped to +0.0, a column NULLed, one column's values swapped
 * between two rows, a row dropped, a row duplicated, a NULL given the one value whose hash is a
 * null's or swapped with it between two rows), fails its group, the new files are removed
 * and the table reads as before; the same output unchanged commits.
 */
class VerificationFaultTest {
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "category", Types.StringType.get()),
      Types.NestedField.optional(3, "amount", Types.DoubleType.get()),
      Types.NestedField.optional(4, "n", Types.LongType.get()));

  /** The long whose value hash equals a null's ({@code ValueHash.ofNull}): only the digest's null counts and lanes tell them apart. */
  private static final long NULL_TWIN = 0x6a09e667f3bcc909L;

  private static final List<Fault> FAULTS = List.of(
      new Fault(
          "a flipped -0.0",
          rows -> {
            rows.stream()
                .filter(r ->
                    Double.doubleToRawLongBits((Double) r.getField("amount")) == Long.MIN_VALUE)
                .findFirst()
                .orElseThrow()
                .setField("amount", 0.0);
            return rows;
          },
          "values differ in column amount"),
      new Fault(
          "a NULLed column",
          rows -> {
            rows.forEach(r -> r.setField("category", null));
            return rows;
          },
          "values differ in column category"),
      new Fault(
          "a value swapped between two rows",
          rows -> {
            Record a = rows.stream()
                .filter(r -> "a".equals(r.getField("category")))
                .findFirst()
                .orElseThrow();
            Record b = rows.stream()
                .filter(r -> "b".equals(r.getField("category")))
                .findFirst()
                .orElseThrow();
            a.setField("category", "b");
            b.setField("category", "a");
            return rows;
          },
          "combined into different rows"),
      new Fault(
          "a dropped row",
          rows -> {
            rows.remove(0);
            return rows;
          },
          "200 live input rows, 199 written"),
      new Fault(
          "a duplicated row",
          rows -> {
            rows.add(rows.get(0).copy());
            return rows;
          },
          "200 live input rows, 201 written"),
      new Fault(
          "a NULL given the value that hashes as a null",
          rows -> {
            rows.stream()
                .filter(r -> r.getField("n") == null)
                .findFirst()
                .orElseThrow()
                .setField("n", NULL_TWIN);
            return rows;
          },
          "values differ in column n"),
      new Fault(
          "a NULL and that value swapped between two rows",
          rows -> {
            Record nul =
                rows.stream().filter(r -> r.getField("n") == null).findFirst().orElseThrow();
            Record twin = rows.stream()
                .filter(r -> Long.valueOf(NULL_TWIN).equals(r.getField("n")))
                .findFirst()
                .orElseThrow();
            nul.setField("n", NULL_TWIN);
            twin.setField("n", null);
            return rows;
          },
          "combined into different rows"));

  record Fault(String name, UnaryOperator<List<Record>> change, String message) {}

  @TempDir
  Path dir;

  JdbcCatalog catalog;

  @BeforeEach
  void setUp() {
    catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
  }

  @Test
  void everyFaultFailsItsGroupForBothRunnersAndAnUnchangedOutputCommits() {
    int n = 0;
    for (CompactionOptions.Runner runner :
        List.of(CompactionOptions.Runner.DUCKDB, CompactionOptions.Runner.GENERIC)) {
      for (Fault fault : FAULTS) {
        Table table = table("t" + n++);
        List<String> before = Rows.sortedStrings(table);
        long snapshot = table.currentSnapshot().snapshotId();
        List<Path> filesBefore = parquetFiles(table);
        CompactionResult r = Compaction.execute(
            Compaction.plan(table, opts(runner)),
            (t, g, o, ordering) -> new Faulty(runnerOf(runner), fault.change()));

        assertThat(r.groups()).as(runner + ", " + fault.name()).singleElement().satisfies(g -> {
          assertThat(g.status()).isEqualTo(Status.VERIFICATION_FAILED);
          assertThat(g.message()).contains("content mismatch", fault.message());
        });
        table.refresh();
        assertThat(table.currentSnapshot().snapshotId()).isEqualTo(snapshot);
        assertThat(Rows.sortedStrings(table)).isEqualTo(before);
        assertThat(parquetFiles(table)).as("the faulty files are removed").isEqualTo(filesBefore);
      }
      Table table = table("t" + n++);
      List<String> before = Rows.sortedStrings(table);
      CompactionResult r = Compaction.execute(
          Compaction.plan(table, opts(runner)),
          (t, g, o, ordering) -> new Faulty(runnerOf(runner), rows -> rows));
      assertThat(r.groups())
          .as(runner + ", unchanged")
          .singleElement()
          .satisfies(g -> assertThat(g.status()).isEqualTo(Status.COMMITTED));
      table.refresh();
      assertThat(Rows.sortedStrings(table)).isEqualTo(before);
    }
  }

  private static GroupRewriter runnerOf(CompactionOptions.Runner runner) {
    return runner == CompactionOptions.Runner.DUCKDB ? new DuckDbRewriter() : new GenericRewriter();
  }

  private static CompactionOptions opts(CompactionOptions.Runner runner) {
    return CompactionOptions.defaults().withOption("min-input-files", "2").withRunner(runner);
  }

  /** Four files of 50 rows: categories a and b in turn, amounts negative, -0.0 in every tenth row and never +0.0. */
  private Table table(String name) {
    Table table = catalog
        .buildTable(TableIdentifier.of("db", name), SCHEMA)
        .withPartitionSpec(PartitionSpec.unpartitioned())
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .create();
    for (int f = 0; f < 4; f++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        long id = f * 50L + i;
        Record r = GenericRecord.create(SCHEMA);
        r.setField("id", id);
        r.setField("category", id % 2 == 0 ? "a" : "b");
        r.setField("amount", id % 10 == 0 ? -0.0 : -1.5 * id);
        r.setField("n", id == 3 ? null : id == 4 ? NULL_TWIN : id);
        rows.add(r);
      }
      table.newAppend().appendFile(TableWrites.writeData(table, rows).get(0)).commit();
    }
    table.refresh();
    return table;
  }

  private static List<Path> parquetFiles(Table table) {
    try (var files = java.nio.file.Files.walk(PlacedFiles.localPath(table.location()))) {
      return files.filter(p -> p.toString().endsWith(".parquet")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The runner's real output, read back, changed and written again in its place. */
  private record Faulty(GroupRewriter runner, UnaryOperator<List<Record>> change)
      implements GroupRewriter {
    @Override
    public String name() {
      return runner.name();
    }

    @Override
    public List<DataFile> rewrite(Table table, RewriteFileGroup group, Settings settings)
        throws Exception {
      List<DataFile> written = runner.rewrite(table, group, settings);
      List<Record> rows = new ArrayList<>();
      for (DataFile f : written) {
        try (CloseableIterable<Record> read = Parquet.read(table.io().newInputFile(f.location()))
            .project(table.schema())
            .createReaderFunc(s -> GenericParquetReaders.buildReader(table.schema(), s))
            .build()) {
          read.forEach(r -> rows.add(r.copy()));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        table.io().deleteFile(f.location());
      }
      return List.of(TableWrites.writeData(table, table.spec(), null, change.apply(rows)));
    }
  }
}
