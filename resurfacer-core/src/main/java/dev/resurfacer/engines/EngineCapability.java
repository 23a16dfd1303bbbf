package dev.resurfacer.engines;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * One engine's declaration for one operation on one table format: it runs there, or it is refused
 * and {@code note} says why. {@code resurfacer engines}, {@code doctor} and {@code docs/features.md}
 * are built from these declarations, and the runner refuses with the note.
 *
 * @param format {@code iceberg} or {@code delta}
 * @param operation the verb and policy name, e.g. {@code compact}, {@code expire}, {@code vacuum}
 * @param refusedSettings settings of an operation that works here which the engine's procedure has no
 *     argument for, by policy key (e.g. {@code sort-by}) to why: a step carrying one is refused before
 *     the engine is reached, never run without it
 */
public record EngineCapability(
    String engine,
    String format,
    String operation,
    boolean works,
    String note,
    Map<String, String> refusedSettings) {
  public EngineCapability {
    refusedSettings = Collections.unmodifiableMap(new TreeMap<>(refusedSettings));
  }

  public EngineCapability(
      String engine, String format, String operation, boolean works, String note) {
    this(engine, format, operation, works, note, Map.of());
  }

  public static EngineCapability works(
      String engine, String format, String operation, String note) {
    return new EngineCapability(engine, format, operation, true, note);
  }

  public static EngineCapability refused(
      String engine, String format, String operation, String why) {
    return new EngineCapability(engine, format, operation, false, why);
  }

  /** This declaration, with {@code setting} (a policy key of the operation) refused for {@code why}. */
  public EngineCapability refusing(String setting, String why) {
    Map<String, String> settings = new TreeMap<>(refusedSettings);
    settings.put(setting, why);
    return new EngineCapability(engine, format, operation, works, note, settings);
  }
}
