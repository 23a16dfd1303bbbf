package dev.resurfacer.iceberg.compact;

/**
 * One group after its rewrite and verification, before the commit phase: a {@link Verdict#VERIFIED}
 * group's new files are ready to commit, and only the commit phase says whether they did.
 *
 * @param verificationCpuNanos the CPU time its content verification's reads took on their threads,
 *     or 0 when it had none (count verification, or a JVM that cannot tell a thread's CPU time)
 * @param message why, when the group was not verified; null otherwise
 */
record RewrittenGroup(
    int index,
    String partition,
    String runner,
    Verdict verdict,
    int inputFiles,
    long inputBytes,
    int outputFiles,
    long outputBytes,
    int deleteFiles,
    long rows,
    long millis,
    long verificationCpuNanos,
    String message) {

  enum Verdict {
    VERIFIED,
    VERIFICATION_FAILED,
    FAILED
  }

  boolean verified() {
    return verdict == Verdict.VERIFIED;
  }

  RewrittenGroup withMessage(String newMessage) {
    return new RewrittenGroup(
        index,
        partition,
        runner,
        verdict,
        inputFiles,
        inputBytes,
        outputFiles,
        outputBytes,
        deleteFiles,
        rows,
        millis,
        verificationCpuNanos,
        newMessage);
  }

  /** The group as the result reports it, once the commit phase decided its {@code status}. */
  CompactionResult.Group as(CompactionResult.Status status, String newMessage) {
    return new CompactionResult.Group(
        index,
        partition,
        runner,
        status,
        inputFiles,
        inputBytes,
        outputFiles,
        outputBytes,
        deleteFiles,
        rows,
        millis,
        newMessage);
  }
}
