package dev.resurfacer.cli;

import dev.resurfacer.maintain.Checkpoint;
import dev.resurfacer.progress.Progress;
import picocli.CommandLine.Command;

@Command(
    name = "checkpoint",
    footer = {
      "%nExamples:",
      "  resurfacer checkpoint /data/lake/events",
      "  resurfacer checkpoint /data/lake/events --yes"
    },
    description = {
      "Delta tables: write a checkpoint of the latest version with Delta Kernel.",
      "Refused (exit 3) while a tombstone within the file retention precedes the newest checkpoint (see docs/delta.md)."
    })
final class CheckpointCommand extends DeltaVerbCommand {
  CheckpointCommand(CliContext ctx) {
    super(ctx);
  }

  @Override
  public Integer call() {
    return runLocally(new Checkpoint(), Progress.NONE, 0);
  }
}
