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
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PositionDeletesScanTask;
import org.apache.iceberg.Schema;
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
 * PositionDeleteRewrite.Result r = PositionDeleteRewrite.run(table, Map.of("min-input-files", "2"), true);
 * </pre>
 */
public final class PositionDeleteRewrite {
  private PositionDeleteRewrite() {}

  /** One group: its partition, delete files in and out, and entries kept and dropped. */
  public record Group(String partition, int inputFiles, long inputBytes, int outputFiles, long keptEntries, long droppedEntries) {}

  public record Result(String table, boolean committed, List<Group> groups, Long snapshotId) {
    public long rewrittenFiles() {
      return groups.stream().mapToLong(Group::inputFiles).sum();
    }
  }

  /** Format v3 and later: position deletes are deletion vectors, and {@link DeletionVectorRewrite} converts v2 files to them. */
  public static boolean carriesDeletionVectors(Table table) {
    return ((HasTableOperations) table).operations().current().formatVersion() >= 3;
  }

  /** Previews ({@code commit == false}) or rewrites every planned group in one commit. */
  public static Result run(Table table, Map<String, String> options, boolean commit) {
    table.refresh();
    if (carriesDeletionVectors(table)) {
      throw new UsageException(table.name() + " is format v3: its position deletes are deletion vectors, one per data file;"
          + " DeletionVectorRewrite converts position-delete files to them");
    }
    if (table.currentSnapshot() == null) {
      return new Result(table.name(), false, List.of(), null);
    }
    BinPackRewritePositionDeletePlanner planner = new BinPackRewritePositionDeletePlanner(table, Expressions.alwaysTrue(), true);
    List<RewritePositionDeletesGroup> groups = new ArrayList<>();
    try {
      planner.init(options);
      FileRewritePlan<RewritePositionDeleteFiles.FileGroupInfo, PositionDeletesScanTask, DeleteFile, RewritePositionDeletesGroup> plan =
          planner.plan();
      try (CloseableIterable<RewritePositionDeletesGroup> all = plan.groups()) {
        all.forEach(groups::add);
      }
    } catch (IllegalArgumentException e) {
      throw new UsageException("cannot plan the position-delete rewrite of " + table.name() + ": " + e.getMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Set<String> liveData = liveDataFiles(table);
    List<Group> results = new ArrayList<>();
    for (RewritePositionDeletesGroup g : groups) {
      DeleteFile first = g.fileScanTasks().get(0).file();
      PartitionSpec spec = table.specs().get(first.specId());
      List<Position> kept = new ArrayList<>();
      long dropped = 0;
      for (DeleteFile d : distinct(g.fileScanTasks())) {
        for (Position p : read(table, d)) {
          if (liveData.contains(p.path())) {
            kept.add(p);
          } else {
            dropped++;
          }
        }
      }
      Set<DeleteFile> out = new HashSet<>();
      if (commit && !kept.isEmpty()) {
        out.add(TableWrites.writePositionDeletes(table, spec, spec.isUnpartitioned() ? null : first.partition(), kept));
      }
      if (commit) {
        g.setOutputFiles(out);
      }
      results.add(new Group(spec.isUnpartitioned() ? "(unpartitioned)" : spec.partitionToPath(first.partition()),
          g.inputFileNum(), g.inputFilesSizeInBytes(), kept.isEmpty() ? 0 : 1, kept.size(), dropped));
    }
    if (!commit || groups.isEmpty()) {
      return new Result(table.name(), false, results, table.currentSnapshot().snapshotId());
    }
    new RewritePositionDeletesCommitManager(table).commitOrClean(new HashSet<>(groups));
    table.refresh();
    return new Result(table.name(), true, results, table.currentSnapshot().snapshotId());
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

  private static Set<String> liveDataFiles(Table table) {
    Set<String> live = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      tasks.forEach(t -> live.add(t.file().location()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return live;
  }
}
