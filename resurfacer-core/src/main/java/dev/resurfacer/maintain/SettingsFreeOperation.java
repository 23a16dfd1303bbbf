package dev.resurfacer.maintain;

/**
 * A built-in operation that carries no settings: its {@link Kind} is all there is to it, and names it and places
 * it in a table's run.
 */
public sealed interface SettingsFreeOperation extends Operation
    permits Checkpoint, ComputePartitionStats, ConvertEqualityDeletes, RemoveDanglingDeletes {

  /** The settings-free operations, each with its name and order ({@link Operation#order()}). */
  enum Kind {
    CHECKPOINT("checkpoint", Operation.CHECKPOINT),
    COMPUTE_PARTITION_STATS("compute-partition-stats", Operation.COMPUTE_PARTITION_STATS),
    CONVERT_EQUALITY_DELETES("convert-equality-deletes", Operation.CONVERT_EQUALITY_DELETES),
    REMOVE_DANGLING_DELETES("remove-dangling-deletes", Operation.REMOVE_DANGLING_DELETES);

    private final String operationName;
    private final int order;

    Kind(String operationName, int order) {
      this.operationName = operationName;
      this.order = order;
    }
  }

  Kind kind();

  @Override
  default String name() {
    return kind().operationName;
  }

  @Override
  default int order() {
    return kind().order;
  }
}
