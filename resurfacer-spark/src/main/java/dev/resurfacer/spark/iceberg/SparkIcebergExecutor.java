package dev.resurfacer.spark.iceberg;

import dev.resurfacer.iceberg.engines.RemoteRewrites;
import dev.resurfacer.iceberg.maintain.IcebergTable;
import dev.resurfacer.maintain.Operation;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.Step;
import dev.resurfacer.spark.SparkContent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every Iceberg executor on the cluster shares: the engine's state, how a preview and a
 * statement are reported, and the check of the rewrites Spark committed.
 */
abstract class SparkIcebergExecutor<O extends Operation>
    implements OperationExecutor.Body<O, IcebergTable> {
  static final Logger PROGRESS = LoggerFactory.getLogger("dev.resurfacer.maintain.progress");
  final SparkIceberg spark;

  SparkIcebergExecutor(SparkIceberg spark) {
    this.spark = spark;
  }

  /** A preview's step: {@code wouldDo} on the cluster this engine reaches. */
  final Step previewed(String wouldDo, Map<String, Long> planned) {
    return Step.previewed(wouldDo + " on spark (" + spark.sql().describe() + ")", planned);
  }

  /** Logs {@code statement} as the table's progress in {@code operation}. */
  static void logStatement(IcebergTable t, String operation, String statement) {
    PROGRESS.info("table={} operation={} engine=spark {}", t.name(), operation, statement);
  }

  /** Runs a procedure call, logged as the table's progress, and returns its one result row. */
  final Map<String, Object> callOne(IcebergTable t, String operation, String statement) {
    logStatement(t, operation, statement);
    return spark.callOne(statement);
  }

  /**
   * Every rewrite committed since {@code before}, on the cluster, against its own parent (a writer may
   * have appended between); a mismatch undoes that rewrite only by a compare-and-set, when nothing
   * committed on top of it.
   */
  final String verify(SparkTable table, IcebergTable t, long before, long after) {
    List<String> checked = new ArrayList<>();
    for (Snapshot rewrite : RemoteRewrites.since(t.table(), before)) {
      SparkContent rowsBefore = spark.contentAt(table, rewrite.parentId());
      SparkContent rowsAfter = spark.contentAt(table, rewrite.snapshotId());
      if (!rowsBefore.equals(rowsAfter)) {
        boolean rolledBack = RemoteRewrites.rollBackIfStillCurrent(t.table(), rewrite);
        throw new IllegalStateException("content changed from " + rowsBefore + " to " + rowsAfter
            + " in snapshot " + rewrite.snapshotId()
            + (rolledBack
                ? "; rolled back to snapshot " + rewrite.parentId()
                : "; not rolled back: another commit followed (inspect it and roll back to "
                    + rewrite.parentId() + " by hand)"));
      }
      checked.add(rowsAfter + " at " + rewrite.snapshotId());
    }
    if (checked.isEmpty()) {
      throw new IllegalStateException("spark committed snapshot " + after
          + " but no rewrite snapshot follows " + before + "; it was not verified");
    }
    return String.join(", ", checked) + ", each equal to its parent";
  }
}
