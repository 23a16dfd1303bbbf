package dev.resurfacer.iceberg.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.compact.Compaction;
import dev.resurfacer.iceberg.compact.CompactionOptions;
import dev.resurfacer.iceberg.compact.CompactionResult;
import dev.resurfacer.iceberg.compact.Ordering;
import dev.resurfacer.iceberg.deletes.DanglingDeletes;
import dev.resurfacer.iceberg.deletes.DeletionVectorRewrite;
import dev.resurfacer.iceberg.deletes.EqualityDeleteConversion;
import dev.resurfacer.iceberg.deletes.PositionDeleteRewrite;
import dev.resurfacer.iceberg.expire.ExpireOptions;
import dev.resurfacer.iceberg.expire.SnapshotExpiry;
import dev.resurfacer.iceberg.manifests.ManifestRewriter;
import dev.resurfacer.iceberg.testing.Invariants;
import dev.resurfacer.iceberg.testing.SqliteCatalogs;
import dev.resurfacer.iceberg.testing.TableState;
import dev.resurfacer.iceberg.upgrade.FormatUpgrade;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random table histories — appends, position deletes (or deletion vectors on v3), equality deletes,
 * schema evolution, partition evolution, tags and branches, v2 and v3 — with maintenance run at
 * random points. A fixed seed per case makes every failure reproducible; keep failing seeds here.
 * After every maintenance run: the rows equal the writer's own model, every retained snapshot and
 * ref reads what it read before, nothing referenced is missing; at the end an orphan sweep leaves
 * exactly the reachable files.
 */
class RandomHistoryTest {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "category", Types.StringType.get()),
      Types.NestedField.optional(3, "v", Types.LongType.get()));
  static final TableIdentifier ID = TableIdentifier.of("db", "history");

  @TempDir
  Path dir;

  /** What a file we wrote holds, in order: the id at each position. */
  private record Written(DataFile file, List<Long> ids) {}

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4})
  void maintenanceKeepsEveryInvariantOnARandomHistory(long seed) throws IOException {
    history(seed);
  }

  /** Four more histories (v2 and v3 again, other specs and actions): with -Plong. */
  @ParameterizedTest
  @ValueSource(longs = {5, 6, 7, 8})
  @org.junit.jupiter.api.Tag("nightly")
  void maintenanceKeepsEveryInvariantOnMoreRandomHistories(long seed) throws IOException {
    history(seed);
  }

  private void history(long seed) throws IOException {
    Random rng = new Random(seed);
    int formatVersion = seed % 2 == 0 ? 3 : 2;
    JdbcCatalog catalog = SqliteCatalogs.create("test", dir);
    catalog.createNamespace(Namespace.of("db"));
    PartitionSpec spec = switch (rng.nextInt(3)) {
      case 0 -> PartitionSpec.unpartitioned();
      case 1 -> PartitionSpec.builderFor(SCHEMA).identity("category").build();
      default -> PartitionSpec.builderFor(SCHEMA).bucket("id", 3).build();
    };
    Table table = catalog
        .buildTable(ID, SCHEMA)
        .withPartitionSpec(spec)
        .withProperty(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion))
        .create();

    Map<Long, String> model = new TreeMap<>();
    Map<String, Map<Long, String>> refModels = new HashMap<>();
    List<Written> written = new ArrayList<>();
    long nextId = 0;
    int maintenanceRuns = 0;
    boolean specChanged = false;
    boolean upgraded = false;
    for (int step = 0; step < 30; step++) {
      table.refresh();
      int action = rng.nextInt(100);
      if (action < 40 || model.isEmpty()) {
        List<Record> rows = new ArrayList<>();
        for (int i = 0, n = 5 + rng.nextInt(20); i < n; i++) {
          Record r = GenericRecord.create(table.schema());
          r.setField("id", nextId);
          r.setField("category", "c" + rng.nextInt(3));
          r.setField("v", (long) rng.nextInt(1000));
          model.put(nextId, r.getField("category") + "|" + r.getField("v"));
          rows.add(r);
          nextId++;
        }
        var append = table.newAppend();
        for (var group :
            TableWrites.groupByPartition(table.spec(), table.schema(), rows).entrySet()) {
          DataFile f = TableWrites.writeData(table, table.spec(), group.getKey(), group.getValue());
          append.appendFile(f);
          written.add(new Written(
              f, group.getValue().stream().map(r -> (Long) r.getField("id")).toList()));
        }
        append.commit();
      } else if (action < 55) {
        positionDelete(table, rng, model, written, formatVersion);
      } else if (action < 70 && !specChanged) {
        // equality deletes reach only data files of their own spec and partition: once the spec has
        // evolved, rows may sit in files of either spec, so the history deletes by position only
        equalityDelete(table, rng, model);
      } else if (action < 75) {
        // a schema change takes effect with the next snapshot: append at once so the snapshot
        // every comparison reads has the schema the rows are rendered with
        table.updateSchema().addColumn("extra_" + step, Types.StringType.get()).commit();
        table.refresh();
        Record r = GenericRecord.create(table.schema());
        r.setField("id", nextId);
        r.setField("category", "c0");
        r.setField("v", 0L);
        model.put(nextId++, "c0|0");
        table
            .newAppend()
            .appendFile(TableWrites.writeData(table, List.of(r)).get(0))
            .commit();
      } else if (action < 80) {
        specChanged = true;
        if (table.spec().isUnpartitioned()) {
          table.updateSpec().addField("category").commit();
        } else {
          table.updateSpec().removeField(table.spec().fields().get(0).name()).commit();
        }
      } else if (action < 85 && table.currentSnapshot() != null) {
        String tag = "tag_" + step;
        table
            .manageSnapshots()
            .createTag(tag, table.currentSnapshot().snapshotId())
            .commit();
        refModels.put(tag, new TreeMap<>(model));
      } else if (table.currentSnapshot() != null) {
        if (formatVersion == 2 && rng.nextInt(3) == 0) {
          // an upgrade mid-history, maintained at once: the older rows have no v3 row ids yet, and
          // the
          // v2 position and equality deletes stay until maintenance converts them
          FormatUpgrade.execute(FormatUpgrade.plan(table, 3));
          formatVersion = 3;
          upgraded = true;
        }
        maintenanceRuns++;
        maintain(catalog, table, rng);
        assertModel(table, model, refModels);
      }
    }
    maintain(catalog, table, rng);
    assertModel(catalog.loadTable(ID), model, refModels);
    Invariants.sweepLeavesExactlyTheReachableFiles(catalog, ID);
    assertModel(catalog.loadTable(ID), model, refModels);
    System.out.printf(
        "random history seed %d: v%d%s, %s, %d rows, %d tags, %d maintenance runs, %d invariants so far%n",
        seed,
        formatVersion,
        upgraded ? " (upgraded from v2)" : "",
        spec.isUnpartitioned() ? "unpartitioned" : spec.fields(),
        model.size(),
        refModels.size(),
        maintenanceRuns + 1,
        Invariants.checked());
  }

  private static void maintain(JdbcCatalog catalog, Table table, Random rng) {
    table.refresh();
    TableState before = TableState.capture(table);
    CompactionOptions options = CompactionOptions.defaults()
        .withOption("min-input-files", "2")
        .withRunner(
            rng.nextBoolean() ? CompactionOptions.Runner.AUTO : CompactionOptions.Runner.GENERIC);
    if (rng.nextInt(3) == 0) {
      options = options
          .withOrdering(new Ordering.ZOrder(List.of("id", "v")))
          .withOption("rewrite-all", "true");
    }
    CompactionResult c = Compaction.execute(Compaction.plan(table, options));
    assertThat(c.groups())
        .allSatisfy(g ->
            assertThat(g.status()).as(g.message()).isEqualTo(CompactionResult.Status.COMMITTED));
    DanglingDeletes.execute(DanglingDeletes.plan("db.history", table));
    if (rng.nextBoolean()) {
      EqualityDeleteConversion.execute(EqualityDeleteConversion.plan(table));
    }
    if (PositionDeleteRewrite.carriesDeletionVectors(table) && rng.nextBoolean()) {
      DeletionVectorRewrite.execute(DeletionVectorRewrite.plan(table));
    }
    ManifestRewriter.execute(ManifestRewriter.plan("db.history", table));
    Invariants.sameRowsAndNothingMissing(catalog, ID, before);
    table.refresh();
    TableState beforeExpire = TableState.capture(table);
    SnapshotExpiry.execute(SnapshotExpiry.plan(
        "db.history",
        table,
        new ExpireOptions(Duration.ZERO, 1 + rng.nextInt(3), List.of(), false)));
    Invariants.sameRowsAndNothingMissing(catalog, ID, beforeExpire);
  }

  private static void positionDelete(
      Table table, Random rng, Map<Long, String> model, List<Written> written, int formatVersion)
      throws IOException {
    Set<String> live = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> live.add(t.file().location()));
    }
    List<Written> candidates =
        written.stream().filter(w -> live.contains(w.file().location())).toList();
    if (candidates.isEmpty()) {
      return;
    }
    Written w = candidates.get(rng.nextInt(candidates.size()));
    List<Long> positions = new ArrayList<>();
    for (int k = 0; k < 3; k++) {
      int pos = rng.nextInt(w.ids().size());
      if (model.containsKey(w.ids().get(pos)) && !positions.contains((long) pos)) {
        positions.add((long) pos);
      }
    }
    if (positions.isEmpty()) {
      return;
    }
    RowDelta delta = table.newRowDelta();
    if (formatVersion >= 3) {
      // a data file has at most one deletion vector: merge with the one it may already have
      return;
    }
    PartitionSpec fileSpec = table.specs().get(w.file().specId());
    delta.addDeletes(TableWrites.writePositionDeletes(
        table,
        fileSpec,
        fileSpec.isUnpartitioned() ? null : w.file().partition(),
        positions.stream().map(p -> new Position(w.file().location(), p)).toList()));
    delta.commit();
    positions.forEach(p -> model.remove(w.ids().get(p.intValue())));
  }

  private static void equalityDelete(Table table, Random rng, Map<Long, String> model) {
    List<Long> ids = new ArrayList<>(model.keySet());
    Schema idOnly = table.schema().select("id");
    RowDelta delta = table.newRowDelta();
    Map<PartitionKey, List<Record>> byPartition = new HashMap<>();
    java.util.Collections.shuffle(ids, rng);
    for (long id : ids.subList(0, Math.min(3, ids.size()))) {
      String[] cv = model.get(id).split("\\|");
      Record full = GenericRecord.create(table.schema());
      full.setField("id", id);
      full.setField("category", cv[0]);
      full.setField("v", Long.parseLong(cv[1]));
      Record key = GenericRecord.create(idOnly);
      key.setField("id", id);
      byPartition
          .computeIfAbsent(partitionOf(table, full), p -> new ArrayList<>())
          .add(key);
      model.remove(id);
    }
    byPartition.forEach((p, rows) -> delta.addDeletes(TableWrites.writeEqualityDeletes(
        table, table.spec(), table.spec().isUnpartitioned() ? null : p, idOnly, rows)));
    delta.commit();
  }

  private static PartitionKey partitionOf(Table table, Record row) {
    PartitionKey key = new PartitionKey(table.spec(), table.schema());
    key.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(row));
    return key;
  }

  private static void assertModel(
      Table table, Map<Long, String> model, Map<String, Map<Long, String>> refModels)
      throws IOException {
    table.refresh();
    assertThat(read(table, null)).as("current rows equal the writer's model").isEqualTo(model);
    for (var ref : refModels.entrySet()) {
      assertThat(read(table, table.refs().get(ref.getKey()).snapshotId()))
          .as("rows of tag %s", ref.getKey())
          .isEqualTo(ref.getValue());
    }
  }

  private static Map<Long, String> read(Table table, Long snapshotId) throws IOException {
    Map<Long, String> out = new TreeMap<>();
    var scan = IcebergGenerics.read(table).select("id", "category", "v");
    if (snapshotId != null) {
      scan = scan.useSnapshot(snapshotId);
    }
    try (CloseableIterable<Record> rows = scan.build()) {
      for (Record r : rows) {
        String previous =
            out.put((Long) r.getField("id"), r.getField("category") + "|" + r.getField("v"));
        assertThat(previous).as("row %s appears once", r.getField("id")).isNull();
      }
    }
    return out;
  }
}
