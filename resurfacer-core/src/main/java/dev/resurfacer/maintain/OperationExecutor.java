package dev.resurfacer.maintain;

/**
 * Runs one kind of operation against an engine's table handle {@code T} (for Iceberg,
 * {@code IcebergTable}). The runner picks the executor by the operation's class, so adding an
 * operation never touches the runner.
 *
 * <p>Contract: in {@link Mode#PREVIEW} change nothing and say what would happen ({@code previewed}, or
 * {@code nothing_to_do}); in {@link Mode#COMMIT} act ({@code done}, or {@code nothing_to_do} with the
 * reason, also when the operation does not apply to the table) — never {@code previewed}: the runner
 * reports a commit-run {@code previewed} (and a preview-run {@code done}) as a failure naming the
 * executor. Throw {@link dev.resurfacer.SafetyRefusal} when a fence refuses (the outcome is
 * {@code REFUSED}); any other exception marks the operation {@code FAILED}. Either way the table's
 * later steps still run unless their safety depends on this one ({@link MaintenanceRunner}).
 */
public interface OperationExecutor<O extends Operation, T> {
  Class<O> operationType();

  Step execute(O operation, T table, Mode mode) throws Exception;

  /** An executor that holds nothing but its work: {@code body} runs every operation of {@code type}. */
  static <O extends Operation, T> OperationExecutor<O, T> of(Class<O> type, Body<O, T> body) {
    return new Of<>(type, body);
  }

  /** What {@link #execute} does, under the same contract. */
  @FunctionalInterface
  interface Body<O extends Operation, T> {
    Step execute(O operation, T table, Mode mode) throws Exception;
  }

  /** Made by {@link #of}; the runner names it by its body, which names the class that wrote it. */
  record Of<O extends Operation, T>(Class<O> operationType, Body<O, T> body)
      implements OperationExecutor<O, T> {
    @Override
    public Step execute(O operation, T table, Mode mode) throws Exception {
      return body.execute(operation, table, mode);
    }
  }
}
