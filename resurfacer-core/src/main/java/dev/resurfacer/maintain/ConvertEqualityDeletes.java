package dev.resurfacer.maintain;

/** Resolve equality deletes into deletion vectors (v3) or position deletes (v2); data files untouched. */
public record ConvertEqualityDeletes() implements SettingsFreeOperation {
  @Override
  public Kind kind() {
    return Kind.CONVERT_EQUALITY_DELETES;
  }
}
