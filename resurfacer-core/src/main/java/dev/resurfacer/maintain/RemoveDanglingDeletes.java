package dev.resurfacer.maintain;

/** Drop delete files that no live data file can match any more (metadata only). */
public record RemoveDanglingDeletes() implements Operation {
  @Override
  public String name() {
    return "remove-dangling-deletes";
  }

  @Override
  public int order() {
    return REMOVE_DANGLING_DELETES;
  }
}
