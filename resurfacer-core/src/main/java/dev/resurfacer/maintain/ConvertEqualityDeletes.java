package dev.resurfacer.maintain;

/** Resolve equality deletes into deletion vectors (v3) or position deletes (v2); data files untouched. */
public record ConvertEqualityDeletes() implements Operation {
  @Override
  public String name() {
    return "convert-equality-deletes";
  }

  @Override
  public int order() {
    return CONVERT_EQUALITY_DELETES;
  }
}
