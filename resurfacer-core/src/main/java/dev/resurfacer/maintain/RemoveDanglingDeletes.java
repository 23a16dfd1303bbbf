package dev.resurfacer.maintain;

/** Drop delete files that no live data file can match any more (metadata only). */
public record RemoveDanglingDeletes() implements SettingsFreeOperation {
  @Override
  public Kind kind() {
    return Kind.REMOVE_DANGLING_DELETES;
  }
}
