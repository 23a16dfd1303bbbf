package dev.resurfacer.engines;

import dev.resurfacer.UsageException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/** The engines on the classpath, found by {@link ServiceLoader}; the local engine always first. */
public final class ExecutionEngines {
  public static final String LOCAL = LocalEngine.NAME;

  private ExecutionEngines() {}

  public static List<ExecutionEngineProvider> available() {
    List<ExecutionEngineProvider> out = new ArrayList<>();
    for (ExecutionEngineProvider p : ServiceLoader.load(ExecutionEngineProvider.class, ExecutionEngines.class.getClassLoader())) {
      out.add(p);
    }
    out.sort(Comparator.comparing((ExecutionEngineProvider p) -> !p.name().equals(LOCAL)).thenComparing(ExecutionEngineProvider::name));
    return List.copyOf(out);
  }

  public static List<String> names() {
    return available().stream().map(ExecutionEngineProvider::name).toList();
  }

  public static ExecutionEngineProvider provider(String name) {
    return available().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow(() -> new UsageException(
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
  public static String refusal(String engine, List<EngineCapability> declared, String format, String operation) {
    String why = declared.stream()
        .filter(c -> c.format().equals(format) && c.operation().equals(operation) && !c.works())
        .map(EngineCapability::note).findFirst().orElse("the engine declares no executor for it");
    return "engine " + engine + " does not run " + operation + " on " + format + " tables: " + why;
  }

  /** Whether {@code engine} declares {@code operation} on {@code format} tables refused. */
  public static boolean declaresRefused(List<EngineCapability> declared, String format, String operation) {
    return declared.stream().anyMatch(c -> c.format().equals(format) && c.operation().equals(operation) && !c.works());
  }
}
