package dev.resurfacer.iceberg.deletes;

import dev.resurfacer.UsageException;
import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PositionDeletesScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.BinPackRewritePositionDeletePlanner;
import org.apache.iceberg.actions.FileRewritePlan;
import org.apache.iceberg.actions.RewritePositionDeleteFiles;
import org.apache.iceberg.actions.RewritePositionDeletesCommitManager;
import org.apache.iceberg.actions.RewritePositionDeletesGroup;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;

/**
 * Compacts small position-delete files per partition (format v2). Planning and commit are Iceberg
 * core's ({@link BinPackRewritePositionDeletePlanner}, {@link RewritePositionDeletesCommitManager});
 * the rewrite keeps every entry whose data file is still live and drops the rest, so readers open
 * fewer delete files and stale entries stop costing anything.
 *
 * <pre>
 * PositionDeleteRewrite.Plan plan = PositionDeleteRewrite.plan(table, Map.of("min-input-files", "2"));
 * PositionDeleteRewrite.Result r = PositionDeleteRewrite.execute(plan);
 * </pre>
 */
public final class PositionDeleteRewrite {
  private PositionDeleteRewrite() {}

  /** One group: its partition, delete files in and out, and entries kept and dropped. */
  public record Group(
      String partition,
      int inputFiles,
      long inputBytes,
      int outputFiles,
      long keptEntries,
      long droppedEntries) {}

  public record Result(String table, boolean committed, List<Group> groups, Long snapshotId) {
    public long rewrittenFiles() {
      return groups.stream().mapToLong(Group::inputFiles).sum();
    }
  }

  /**
   * Core's groups of one snapshot ({@code baseSnapshotId}, null for a table without one), the data
   * files live in it (an entry naming another is dropped), and core's commit manager, created against
   * that snapshot (null without groups). It holds references: the delete files are read when
   * previewed or executed. {@link #execute} gives the groups their output, so a plan is executed at most once.
   */
  public record Plan(
      Table table,
      Long baseSnapshotId,
      List<RewritePositionDeletesGroup> groups,
      Set<String> liveDataFiles,
      RewritePositionDeletesCommitManager commitManager) {
    public Plan {
      groups = List.copyOf(groups);
      liveDataFiles = Set.copyOf(liveDataFiles);
    }

    /** The groups {@link #execute} would report, their entries counted by reading the delete files as it does; writes nothing. */
    public Result preview() {
      return new Result(table.name(), false, rewrite(this, (group, kept) -> {}), baseSnapshotId);
    }
  }

  /** Format v3 and later: position deletes are deletion vectors, and {@link DeletionVectorRewrite} converts v2 files to them. */
  public static boolean carriesDeletionVectors(Table table) {
    return ((HasTableOperations) table).operations().current().formatVersion() >= 3;
  }

  /** What {@link #execute} would rewrite in the current snapshot, planned by core with Spark's option names. Reads metadata only. */
  public static Plan plan(Table table, Map<String, String> options) {
    table.refresh();
    if (carriesDeletionVectors(table)) {
      throw new UsageException(table.name()
          + " is format v3: its position deletes are deletion vectors, one per data file;"
          + " DeletionVectorRewrite converts position-delete files to them");
    }
    Snapshot base = table.currentSnapshot();
    if (base == null) {
      return new Plan(table, null, List.of(), Set.of(), null);
    }
    RewritePositionDeletesCommitManager commitManager =
        new RewritePositionDeletesCommitManager(table);
    BinPackRewritePositionDeletePlanner planner =
        new BinPackRewritePositionDeletePlanner(table, Expressions.alwaysTrue(), true);
    List<RewritePositionDeletesGroup> groups = new ArrayList<>();
    try {
      planner.init(options);
      FileRewritePlan<
              RewritePositionDeleteFiles.FileGroupInfo,
              PositionDeletesScanTask,
              DeleteFile,
              RewritePositionDeletesGroup>
          plan = planner.plan();
      try (CloseableIterable<RewritePositionDeletesGroup> all = plan.groups()) {
        all.forEach(groups::add);
      }
    } catch (IllegalArgumentException e) {
      throw new UsageException(
          "cannot plan the position-delete rewrite of " + table.name() + ": " + e.getMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (groups.isEmpty()) {
      return new Plan(table, base.snapshotId(), List.of(), Set.of(), null);
    }
    return new Plan(table, base.snapshotId(), groups, liveDataFiles(table, base), commitManager);
  }

  /** Rewrites every planned group, its delete files read now, and commits them all in one commit. */
  public static Result execute(Plan plan) {
    if (plan.groups().isEmpty()) {
      return plan.preview();
    }
    Table table = plan.table();
    List<Group> results = rewrite(plan, (group, kept) -> {
      Set<DeleteFile> out = new HashSet<>();
      if (!kept.isEmpty()) {
        DeleteFile first = group.fileScanTasks().get(0).file();
        PartitionSpec spec = table.specs().get(first.specId());
        out.add(TableWrites.writePositionDeletes(
            table, spec, spec.isUnpartitioned() ? null : first.partition(), kept));
      }
      group.setOutputFiles(out);
    });
    plan.commitManager().commitOrClean(new HashSet<>(plan.groups()));
    table.refresh();
    return new Result(table.name(), true, results, table.currentSnapshot().snapshotId());
  }

  /** Reads each group's delete files, keeps the entries of live data files, and hands them to {@code write}. */
  private static List<Group> rewrite(
      Plan plan, BiConsumer<RewritePositionDeletesGroup, List<Position>> write) {
    Table table = plan.table();
    List<Group> results = new ArrayList<>();
    for (RewritePositionDeletesGroup g : plan.groups()) {
      DeleteFile first = g.fileScanTasks().get(0).file();
      PartitionSpec spec = table.specs().get(first.specId());
      List<Position> kept = new ArrayList<>();
      long dropped = 0;
      for (DeleteFile d : distinct(g.fileScanTasks())) {
        for (Position p : read(table, d)) {
          if (plan.liveDataFiles().contains(p.path())) {
            kept.add(p);
          } else {
            dropped++;
          }
        }
      }
      write.accept(g, kept);
      results.add(new Group(
          spec.isUnpartitioned() ? "(unpartitioned)" : spec.partitionToPath(first.partition()),
          g.inputFileNum(),
          g.inputFilesSizeInBytes(),
          kept.isEmpty() ? 0 : 1,
          kept.size(),
          dropped));
    }
    return List.copyOf(results);
  }

  private static List<DeleteFile> distinct(List<PositionDeletesScanTask> tasks) {
    Map<String, DeleteFile> byLocation = new LinkedHashMap<>();
    tasks.forEach(t -> byLocation.putIfAbsent(t.file().location(), t.file()));
    return new ArrayList<>(byLocation.values());
  }

  private static List<Position> read(Table table, DeleteFile file) {
    Schema pathPos = new Schema(MetadataColumns.DELETE_FILE_PATH, MetadataColumns.DELETE_FILE_POS);
    List<Position> out = new ArrayList<>();
    try (CloseableIterable<Record> rows = Parquet.read(table.io().newInputFile(file))
        .project(pathPos)
        .createReaderFunc(fs -> GenericParquetReaders.buildReader(pathPos, fs))
        .build()) {
      rows.forEach(r -> out.add(new Position(r.get(0).toString(), (Long) r.get(1))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static Set<String> liveDataFiles(Table table, Snapshot snapshot) {
    Set<String> live = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks =
        table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
      tasks.forEach(t -> live.add(t.file().location()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return live;
  }
}
