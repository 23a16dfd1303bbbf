package dev.resurfacer.maintain;

/** Write a checkpoint of a Delta table's latest version, so readers replay fewer JSON commits. */
public record Checkpoint() implements Operation {
  @Override
  public String name() {
    return "checkpoint";
  }

  @Override
  public int order() {
    return CHECKPOINT;
  }
}
