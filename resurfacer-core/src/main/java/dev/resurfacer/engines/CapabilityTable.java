package dev.resurfacer.engines;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The operation × format × engine matrix of {@link EngineDeclarations}, one row per format and operation,
 * one cell per engine: {@code works}, {@code works (not: setting, ...)}, {@code refused} or {@code -} (not
 * declared). {@code doctor} prints it and {@code docs/features.md} carries it as Markdown.
 */
public record CapabilityTable(List<String> engines, List<Row> rows) {
  public record Row(String format, String operation, List<String> cells) {}

  public CapabilityTable {
    engines = List.copyOf(engines);
    rows = List.copyOf(rows);
  }

  public static CapabilityTable of(List<EngineCapability> declared) {
    Set<String> engines = new LinkedHashSet<>();
    Map<List<String>, Map<String, EngineCapability>> byOperation = new LinkedHashMap<>();
    for (String format : List.of("iceberg", "delta")) {
      for (EngineCapability c : declared) {
        engines.add(c.engine());
        if (c.format().equals(format)) {
          byOperation
              .computeIfAbsent(List.of(format, c.operation()), k -> new LinkedHashMap<>())
              .put(c.engine(), c);
        }
      }
    }
    List<Row> rows = new ArrayList<>();
    byOperation.forEach((key, cells) -> rows.add(new Row(
        key.get(0), key.get(1), engines.stream().map(e -> cell(cells.get(e))).toList())));
    return new CapabilityTable(List.copyOf(engines), rows);
  }

  private static String cell(EngineCapability c) {
    if (c == null) {
      return "-";
    }
    if (!c.works()) {
      return "refused";
    }
    return c.refusedSettings().isEmpty()
        ? "works"
        : "works (not: " + String.join(", ", c.refusedSettings().keySet()) + ")";
  }

  /** The Markdown table, one line each, ending in a newline. */
  public String markdown() {
    StringBuilder out =
        new StringBuilder("| Format | Operation | " + String.join(" | ", engines) + " |\n");
    out.append("|---|---|").append("---|".repeat(engines.size())).append('\n');
    for (Row r : rows) {
      out.append("| ")
          .append(r.format())
          .append(" | `")
          .append(r.operation())
          .append("` | ")
          .append(String.join(" | ", r.cells()))
          .append(" |\n");
    }
    return out.toString();
  }
}
