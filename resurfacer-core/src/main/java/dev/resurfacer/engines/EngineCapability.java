package dev.resurfacer.engines;

/**
 * One engine's declaration for one operation on one table format: it runs there, or it is refused
 * and {@code note} says why. {@code resurfacer engines}, {@code doctor} and {@code docs/features.md}
 * are built from these declarations, and the runner refuses with the note.
 *
 * @param format {@code iceberg} or {@code delta}
 * @param operation the verb and policy name, e.g. {@code compact}, {@code expire}, {@code vacuum}
 */
public record EngineCapability(String engine, String format, String operation, boolean works, String note) {
  public static EngineCapability works(String engine, String format, String operation, String note) {
    return new EngineCapability(engine, format, operation, true, note);
  }

  public static EngineCapability refused(String engine, String format, String operation, String why) {
    return new EngineCapability(engine, format, operation, false, why);
  }
}
