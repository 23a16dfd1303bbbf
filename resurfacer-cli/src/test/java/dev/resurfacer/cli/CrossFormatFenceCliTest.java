package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.delta.table.DeltaTables;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.write.TableWrites;
import io.delta.kernel.TableManager;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cross-format fences through the real command line: each refusal is exit 3 with its reason on
 * one line, and no file under either table changes. (CrossFormatFenceTest in resurfacer-delta runs the
 * same classes on delta-spark tables, reading them back with Spark.)
 */
class CrossFormatFenceCliTest {
  private static final Duration OLD = Duration.ofDays(10);
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  @TempDir
  Path dir;

  private static Path deltaTable(Path t) throws Exception {
    var engine = DefaultEngine.create(DeltaTables.hadoopConf());
    TableManager.buildCreateTableTransaction(
            t.toUri().toString(), new StructType().add("id", LongType.LONG), "resurfacer-tests")
        .build(engine)
        .commit(engine, CloseableIterable.emptyIterable());
    return t;
  }

  private static Table icebergTable(JdbcCatalog catalog, String location) {
    catalog.createNamespace(Namespace.of("db"));
    var builder = catalog.buildTable(TableIdentifier.of("db", "t"), SCHEMA);
    Table t =
        location == null ? builder.create() : builder.withLocation(location).create();
    List<Record> rows = new ArrayList<>();
    for (long i = 0; i < 10; i++) {
      GenericRecord r = GenericRecord.create(SCHEMA);
      r.setField("id", i);
      rows.add(r);
    }
    var append = t.newAppend();
    TableWrites.writeData(t, rows).forEach(append::appendFile);
    append.commit();
    return t;
  }

  private static Path old(Path p) throws Exception {
    Files.createDirectories(p.getParent());
    if (!Files.exists(p)) {
      Files.writeString(p, "x");
    }
    Files.setLastModifiedTime(p, FileTime.from(Instant.now().minus(OLD)));
    return p;
  }

  private static void ageAll(Path root) throws Exception {
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        old(p);
      }
    }
  }

  private static Map<Path, Long> tree(Path root) throws Exception {
    Map<Path, Long> out = new TreeMap<>();
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        out.put(p, Files.size(p));
      }
    }
    return out;
  }

  @Test
  void vacuumOfADeltaTableHoldingAnIcebergTableAndItsCatalogIsExitThree() throws Exception {
    Path delta = deltaTable(dir.resolve("events"));
    old(delta.resolve("stray.parquet"));
    Path catDir = delta.resolve("ice");
    JdbcCatalog catalog = SqliteCatalogs.create("lake", catDir);
    icebergTable(catalog, null);
    catalog.close();
    ageAll(delta);
    Map<Path, Long> before = tree(delta);

    CliRun r = CliRun.run(
        dir, "vacuum", delta.toString(), "--retention", "0h", "--force-retention", "--yes");

    assertThat(r.exitCode()).as(r.err()).isEqualTo(3);
    assertThat(r.err())
        .contains("another table lives inside this table's directory")
        .contains("ice");
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(tree(delta)).isEqualTo(before);
  }

  @Test
  void removeOrphansOfAnIcebergTableHoldingADeltaTableIsExitThree() throws Exception {
    Path catDir = dir.resolve("cat");
    JdbcCatalog catalog = SqliteCatalogs.create("lake", catDir);
    Table t = icebergTable(catalog, null);
    catalog.close();
    Path root = Path.of(t.location());
    Path delta = deltaTable(root.resolve("data/nested"));
    DeltaKernelWrites.add(delta, old(delta.resolve("part-0.parquet")));
    old(root.resolve("data/stray.parquet"));
    ageAll(root);
    Map<Path, Long> before = tree(root);

    CliRun r = CliRun.run(
        dir,
        "remove-orphans",
        "db.t",
        "--older-than",
        "0s",
        "--yes",
        "--catalog-name",
        "lake",
        "--catalog-uri",
        SqliteCatalogs.uri(catDir),
        "--warehouse",
        SqliteCatalogs.warehouse(catDir));

    assertThat(r.exitCode()).as(r.err()).isEqualTo(3);
    assertThat(r.err()).contains("a Delta table lives at").contains("data/nested");
    assertThat(tree(root)).isEqualTo(before);
  }

  @Test
  void removeOrphansOfAnIcebergTableWhoseFileAConfiguredDeltaTableReadsIsExitThree()
      throws Exception {
    Path catDir = dir.resolve("cat");
    JdbcCatalog catalog = SqliteCatalogs.create("lake", catDir);
    Table t = icebergTable(catalog, null);
    var file = t.currentSnapshot().addedDataFiles(t.io()).iterator().next();
    Path dataFile = Path.of(file.location());
    var more = t.newAppend();
    TableWrites.writeData(
            t, List.of(org.apache.iceberg.data.GenericRecord.create(SCHEMA).copy("id", 99L)))
        .forEach(more::appendFile);
    more.commit(); // the table keeps a data file of its own after it drops the shared one
    // a Delta table converted in place reads the Iceberg table's file by absolute path; the Iceberg
    // table then drops it
    Path delta = deltaTable(dir.resolve("converted"));
    DeltaKernelWrites.add(delta, dataFile);
    t.newDelete().deleteFile(file).commit();
    t.expireSnapshots()
        .expireOlderThan(System.currentTimeMillis() + 1)
        .retainLast(1)
        .deleteWith(f -> {})
        .commit();
    catalog.close();
    ageAll(Path.of(t.location()));
    Files.writeString(
        dir.resolve("resurfacer.yml"),
        "catalogs:\n  deltas:\n    type: delta\n    tables:\n      raw.converted: " + delta + "\n");
    String[] run = {
      "remove-orphans",
      "db.t",
      "--older-than",
      "0s",
      "--yes",
      "--catalog-name",
      "lake",
      "--catalog-uri",
      SqliteCatalogs.uri(catDir),
      "--warehouse",
      SqliteCatalogs.warehouse(catDir)
    };

    CliRun r = CliRun.run(dir, run);

    assertThat(r.exitCode()).as(r.err()).isEqualTo(3);
    assertThat(r.err()).contains("raw.converted in catalog 'deltas' references files in");
    assertThat(dataFile).exists();

    // control: without the delta catalog the Iceberg table's sweep takes the file the Delta table
    // reads
    Files.delete(dir.resolve("resurfacer.yml"));
    CliRun unfenced = CliRun.run(dir, run);
    assertThat(unfenced.exitCode()).as(unfenced.err()).isZero();
    assertThat(dataFile).doesNotExist();
  }

  @Test
  void expireOfASnapshotWhoseFileAConfiguredDeltaTableReadsIsExitThree() throws Exception {
    Path catDir = dir.resolve("cat");
    JdbcCatalog catalog = SqliteCatalogs.create("lake", catDir);
    Table t = icebergTable(catalog, null);
    var file = t.currentSnapshot().addedDataFiles(t.io()).iterator().next();
    Path dataFile = Path.of(file.location());
    Path delta = deltaTable(dir.resolve("converted"));
    DeltaKernelWrites.add(delta, dataFile);
    t.newDelete()
        .deleteFile(file)
        .commit(); // only the first snapshot reads it now: expiring that snapshot deletes it
    catalog.close();
    Files.writeString(
        dir.resolve("resurfacer.yml"),
        "catalogs:\n  deltas:\n    type: delta\n    tables:\n      raw.converted: " + delta + "\n");
    String[] run = {
      "expire",
      "db.t",
      "--older-than",
      "0s",
      "--retain-last",
      "1",
      "--yes",
      "--catalog-name",
      "lake",
      "--catalog-uri",
      SqliteCatalogs.uri(catDir),
      "--warehouse",
      SqliteCatalogs.warehouse(catDir)
    };
    String metadataBefore = SqliteCatalogs.create("lake", catDir)
        .loadTable(TableIdentifier.of("db", "t"))
        .location();

    CliRun r = CliRun.run(dir, run);

    assertThat(r.exitCode()).as(r.err()).isEqualTo(3);
    assertThat(r.err())
        .contains("raw.converted in catalog 'deltas' references files in")
        .contains("nothing was expired");
    assertThat(dataFile).exists();
    try (JdbcCatalog reopened = SqliteCatalogs.create("lake", catDir)) {
      assertThat(reopened.loadTable(TableIdentifier.of("db", "t")).snapshots())
          .as("no snapshot expired")
          .hasSize(2);
    }

    // control: without the delta catalog the expiry deletes the file the Delta table reads
    Files.delete(dir.resolve("resurfacer.yml"));
    CliRun unfenced = CliRun.run(dir, run);
    assertThat(unfenced.exitCode()).as(unfenced.err()).isZero();
    assertThat(dataFile).doesNotExist();
    assertThat(metadataBefore).isNotEmpty();
  }

  @Test
  void vacuumOfATableWhoseFilesAConfiguredCloneReadsIsExitThree() throws Exception {
    Path src = deltaTable(dir.resolve("events"));
    Path shared = old(src.resolve("part-0.parquet"));
    DeltaKernelWrites.add(src, shared);
    Path clone = deltaTable(dir.resolve("events_clone"));
    DeltaKernelWrites.add(
        clone,
        shared); // outside the clone's root: its log names the source's file by absolute path
    // the source drops the file (a rewrite elsewhere would do the same): only the clone reads it
    // now
    var engine = DefaultEngine.create(DeltaTables.hadoopConf());
    var snapshot = TableManager.loadSnapshot(src.toUri().toString()).build(engine);
    Files.writeString(
        src.resolve("_delta_log/00000000000000000002.json"),
        "{\"remove\":{\"path\":\"part-0.parquet\","
            + "\"deletionTimestamp\":" + Instant.now().minus(OLD).toEpochMilli()
            + ",\"dataChange\":true}}\n"
            + "{\"commitInfo\":{\"timestamp\":" + System.currentTimeMillis()
            + ",\"operation\":\"DELETE\"}}\n");
    assertThat(snapshot.getVersion()).isEqualTo(1);
    ageAll(src);
    Files.writeString(
        dir.resolve("resurfacer.yml"),
        "catalogs:\n  lake:\n    type: delta\n    tables:\n      raw.events: " + src
            + "\n      raw.events_clone: " + clone + "\n");
    Map<Path, Long> before = tree(src);

    CliRun r =
        CliRun.run(dir, "vacuum", "raw.events", "--retention", "0h", "--force-retention", "--yes");

    assertThat(r.exitCode()).as(r.err()).isEqualTo(3);
    assertThat(r.err()).contains("raw.events_clone in catalog 'lake' references files in");
    assertThat(tree(src)).isEqualTo(before);
    assertThat(shared).exists();

    // control: without the clone in the configuration the same run deletes the file the clone reads
    Files.writeString(
        dir.resolve("resurfacer.yml"),
        "catalogs:\n  lake:\n    type: delta\n    tables:\n      raw.events: " + src + "\n");
    CliRun unfenced =
        CliRun.run(dir, "vacuum", "raw.events", "--retention", "0h", "--force-retention", "--yes");
    assertThat(unfenced.exitCode()).as(unfenced.err()).isZero();
    assertThat(shared).doesNotExist();
  }
}
