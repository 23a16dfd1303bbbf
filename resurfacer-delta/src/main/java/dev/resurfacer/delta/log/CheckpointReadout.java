package dev.resurfacer.delta.log;

import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.report.Readout;
import java.time.Clock;

/** What {@code checkpoint} shows: the checkpoint Kernel wrote, or in a preview whether it would write one. */
public record CheckpointReadout(Checkpointer.Outcome outcome, boolean acted) implements Readout {
  public static CheckpointReadout run(DeltaTable table, Mode mode, Clock clock) {
    boolean write = mode == Mode.COMMIT;
    Checkpointer.Plan plan = Checkpointer.plan(table, clock);
    return new CheckpointReadout(write ? Checkpointer.execute(plan) : plan.preview(), write);
  }

  @Override
  public Object json() {
    return outcome;
  }

  @Override
  public String render() {
    return "checkpoint " + outcome.table() + ": " + outcome.message()
        + (acted ? "" : "  (preview: --yes writes it)");
  }
}
