package dev.resurfacer.engines;

import dev.resurfacer.UsageException;
import dev.resurfacer.maintain.Operation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeSet;

/** The engines on the classpath, found by {@link ServiceLoader}; the local engine always first. */
public final class ExecutionEngines {
  public static final String LOCAL = LocalEngine.NAME;

  private ExecutionEngines() {}

  public static List<ExecutionEngineProvider> available() {
    List<ExecutionEngineProvider> out = new ArrayList<>();
    for (ExecutionEngineProvider p : ServiceLoader.load(
        ExecutionEngineProvider.class, ExecutionEngines.class.getClassLoader())) {
      out.add(p);
    }
    out.sort(Comparator.comparing((ExecutionEngineProvider p) -> !p.name().equals(LOCAL))
        .thenComparing(ExecutionEngineProvider::name));
    return List.copyOf(out);
  }

  public static List<String> names() {
    return available().stream().map(ExecutionEngineProvider::name).toList();
  }

  public static ExecutionEngineProvider provider(String name) {
    return available().stream()
        .filter(p -> p.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new UsageException(
            "unknown engine '" + name + "' (available: " + String.join(", ", names()) + ")"));
  }

  /** Every engine's declarations, engine by engine in {@link #available()} order. */
  public static List<EngineCapability> capabilities() {
    return available().stream().flatMap(p -> p.capabilities().stream()).toList();
  }

  /**
   * Why {@code engine} does not run {@code operation} on {@code format} tables, from its declarations:
   * the sentence the runner reports and a single verb prints.
   */
  public static String refusal(
      String engine, List<EngineCapability> declared, String format, String operation) {
    String why = declared.stream()
        .filter(c -> c.format().equals(format) && c.operation().equals(operation) && !c.works())
        .map(EngineCapability::note)
        .findFirst()
        .orElse("the engine declares no executor for it");
    return "engine " + engine + " does not run " + operation + " on " + format + " tables: " + why;
  }

  /**
   * Why {@code engine} refuses {@code operation} as given: the first of its settings
   * ({@link Operation#givenSettings()}) the engine's capability declares it has no
   * argument for; empty when it runs as given. One line naming the setting (flag and policy key) and the engine.
   */
  public static Optional<String> refusedSetting(
      String engine, List<EngineCapability> declared, String format, Operation operation) {
    for (EngineCapability c : declared) {
      if (c.format().equals(format) && c.operation().equals(operation.name())) {
        for (String setting : new TreeSet<>(operation.givenSettings())) {
          String why = c.refusedSettings().get(setting);
          if (why != null) {
            return Optional.of("engine " + engine + " does not take " + operation.name() + " "
                + setting + " (--" + setting + ", policy " + operation.name() + "." + setting
                + ") on " + format + " tables: " + why + "; run it with --engine local");
          }
        }
      }
    }
    return Optional.empty();
  }

  /** Whether {@code engine} declares {@code operation} on {@code format} tables refused. */
  public static boolean declaresRefused(
      List<EngineCapability> declared, String format, String operation) {
    return declared.stream()
        .anyMatch(c -> c.format().equals(format) && c.operation().equals(operation) && !c.works());
  }
}
