package dev.resurfacer.maintain;

/** Write a checkpoint of a Delta table's latest version, so readers replay fewer JSON commits. */
public record Checkpoint() implements SettingsFreeOperation {
  @Override
  public Kind kind() {
    return Kind.CHECKPOINT;
  }
}
