package dev.resurfacer.maintain;

/**
 * Runs one kind of operation against an engine's table handle {@code T} (for Iceberg,
 * {@code IcebergTable}). The runner picks the executor by the operation's class, so adding an
 * operation never touches the runner.
 *
 * <p>Contract: in {@link Mode#PREVIEW} change nothing and say what would happen; in {@link Mode#COMMIT}
 * act. Throw {@link dev.resurfacer.SafetyRefusal} when a fence refuses (the table's run stops, the
 * outcome is {@code REFUSED}); any other exception marks the operation {@code FAILED}.
 */
public interface OperationExecutor<O extends Operation, T> {
  Class<O> operationType();

  Step execute(O operation, T table, Mode mode) throws Exception;
}
