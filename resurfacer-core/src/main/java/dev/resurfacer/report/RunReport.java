package dev.resurfacer.report;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.List;

/**
 * Everything one run did, per table and per operation. Serialized as the {@code maintain --output json}
 * schema (see docs/user-guide.md); {@link #SCHEMA_VERSION} changes only with a breaking change.
 *
 * <pre>
 * RunReport report = resurfacer.run(plan, Mode.COMMIT);
 * report.raiseIfErrors();   // throws MaintenanceFailed naming every failed or refused table
 * </pre>
 */
public record RunReport(
    int schemaVersion, String mode, String startedAt, long durationMs, List<TableReport> tables) {
  public static final int SCHEMA_VERSION = 1;

  public RunReport {
    tables = List.copyOf(tables);
  }

  /** Tables per outcome ({@code done}, {@code failed}, ...), every outcome present, in enum order. */
  @com.fasterxml.jackson.annotation.JsonProperty("summary")
  public java.util.Map<String, Long> summary() {
    java.util.Map<String, Long> m = new java.util.LinkedHashMap<>();
    m.put("tables", (long) tables.size());
    for (Outcome o : Outcome.values()) {
      m.put(o.json(), count(o));
    }
    return m;
  }

  /** Combines the reports of several catalogs' runs into one. */
  public static RunReport merge(
      String mode, String startedAt, long durationMs, List<RunReport> parts) {
    return new RunReport(
        SCHEMA_VERSION,
        mode,
        startedAt,
        durationMs,
        parts.stream().flatMap(p -> p.tables().stream()).toList());
  }

  public long count(Outcome outcome) {
    return tables.stream().filter(t -> t.outcome() == outcome).count();
  }

  /** 0 all good (skips included), 1 a table failed, 3 a fence refused and nothing failed. */
  @JsonIgnore
  public int exitCode() {
    if (count(Outcome.FAILED) > 0) {
      return 1;
    }
    return count(Outcome.REFUSED) > 0 ? 3 : 0;
  }

  public void raiseIfErrors() {
    List<TableReport> bad = tables.stream()
        .filter(t -> t.outcome() == Outcome.FAILED || t.outcome() == Outcome.REFUSED)
        .toList();
    if (!bad.isEmpty()) {
      throw new MaintenanceFailed(bad);
    }
  }

  /** Thrown by {@link #raiseIfErrors()}; carries the failed and refused tables. */
  public static final class MaintenanceFailed extends RuntimeException {
    private final transient List<TableReport> tables;

    MaintenanceFailed(List<TableReport> tables) {
      super(tables.size() + " table(s) did not finish: "
          + String.join(
              "; ",
              tables.stream()
                  .map(t ->
                      t.catalog() + "." + t.table() + " " + t.outcome().json() + ": " + t.message())
                  .toList()));
      this.tables = List.copyOf(tables);
    }

    public List<TableReport> tables() {
      return tables;
    }
  }
}
