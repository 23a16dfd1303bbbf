package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.progress.Progress;
import java.time.Duration;

/**
 * Acts on an {@link OrphanPlan}: reads the metadata once more (refusing if it now references a candidate),
 * then deletes the orphans or moves them to the quarantine, then purges quarantine runs past their retention.
 */
final class Sweeper {
  private Sweeper() {}

  static OrphanReport.Removed sweep(
      OrphanPlan plan, boolean quarantine, Duration quarantineRetention, Progress progress) {
    OrphanReport.Files orphans = plan.found().census().orphans();
    long acted = 0;
    long actedBytes = 0;
    long failed = 0;
    String runId = null;
    if (orphans.files() > 0) {
      Fences.requireUnchangedSince(
          plan.ops(), plan.after(), plan.walker(), plan.ledger(), plan.resolver());
      try (Progress.Task task = progress.start(
          "remove-orphans " + plan.name() + (quarantine ? ": quarantine" : ": delete"),
          "files",
          orphans.files(),
          orphans.bytes())) {
        if (quarantine) {
          runId = Quarantine.newRunId(plan.now());
          long[] moved = plan.holding()
              .quarantine(
                  plan.name(),
                  runId,
                  plan.now(),
                  sink -> plan.ledger().forEachOrphan(f -> {
                    sink.accept(f);
                    task.advance(1, Math.max(0, f.sizeBytes()));
                  }));
          acted = moved[0];
          actedBytes = moved[1];
        } else {
          BatchDeleter deleter = new BatchDeleter(plan.io(), task);
          plan.ledger().forEachOrphan(deleter::add);
          deleter.flush();
          acted = deleter.deleted;
          actedBytes = deleter.deletedBytes;
          failed = deleter.failed;
        }
      }
    }
    long[] purged = plan.holding().purgeOlderThan(plan.now() - quarantineRetention.toMillis());
    OrphanReport.Files done = new OrphanReport.Files(acted, actedBytes);
    return new OrphanReport.Removed(
        quarantine ? OrphanReport.Files.NONE : done,
        failed,
        runId,
        quarantine ? done : OrphanReport.Files.NONE,
        new OrphanReport.Files(purged[0], purged[1]));
  }
}
