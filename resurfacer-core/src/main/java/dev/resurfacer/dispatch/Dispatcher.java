package dev.resurfacer.dispatch;

import dev.resurfacer.UsageException;
import dev.resurfacer.engines.EngineSettings;
import dev.resurfacer.engines.ExecutionEngine;
import dev.resurfacer.engines.ExecutionEngineProvider;
import dev.resurfacer.engines.ExecutionEngines;
import dev.resurfacer.formats.Format;
import dev.resurfacer.formats.Formats;
import dev.resurfacer.maintain.Mode;
import dev.resurfacer.maintain.Operation;
import dev.resurfacer.maintain.OperationExecutor;
import dev.resurfacer.maintain.Step;
import java.util.List;
import java.util.function.Supplier;

/**
 * One operation on one table by one execution engine (local included), whichever the table's format: the
 * table is resolved by the one rule ({@link Formats#resolve}), the engine's declared capability for the
 * operation on that format is checked (an operation it declares refused, or a setting it has no argument
 * for, is refused with the engine's own reason before anything is connected to), then the engine's
 * executor runs on the opened table.
 */
public final class Dispatcher {
  private Dispatcher() {}

  /** What ran: the table as named, its format, and the executor's step. */
  public record Outcome(String table, Format format, Step step) {}

  /**
   * @param provider the engine the flags or the table's policy name
   * @param settings the engine's {@code engines.<name>:} section, read only once the step may run
   */
  public static Outcome onEngine(
      TableLookup lookup,
      ExecutionEngineProvider provider,
      Supplier<EngineSettings> settings,
      Operation operation,
      Mode mode) {
    return onEngine(lookup, () -> provider, settings, operation, mode, false);
  }

  /**
   * {@link #onEngine} for a verb declared for some formats only ({@link #local}): a table of another format
   * is refused by that declaration before the engine is looked up.
   */
  public static Outcome onDeclaredFormat(
      TableLookup lookup,
      Supplier<ExecutionEngineProvider> provider,
      Supplier<EngineSettings> settings,
      Operation operation,
      Mode mode) {
    return onEngine(lookup, provider, settings, operation, mode, true);
  }

  private static Outcome onEngine(
      TableLookup lookup,
      Supplier<ExecutionEngineProvider> provider,
      Supplier<EngineSettings> settings,
      Operation operation,
      Mode mode,
      boolean declaredFormatOnly) {
    try (Target<?> target = Formats.resolve(lookup)) {
      if (declaredFormatOnly) {
        requireDeclaredFormat(lookup, target, operation);
      }
      return new Outcome(
          target.name(), target.format(), run(target, provider.get(), settings, operation, mode));
    }
  }

  /**
   * A verb the local engine declares for some formats only ({@code vacuum}, {@code checkpoint},
   * {@code cleanup-log}: Delta; {@code expire}, {@code remove-orphans}: Iceberg), on the local engine: the
   * name is asked of the declared formats first ({@link Formats#resolve(TableLookup, List)}), a table of
   * another format is refused with what the declaration says, else the table's format runs it
   * ({@link Target#act}) and returns what the command prints.
   */
  public static dev.resurfacer.report.Readout local(
      TableLookup lookup,
      Operation operation,
      Mode mode,
      dev.resurfacer.progress.Progress progress,
      int show) {
    return local(lookup, operation, mode, progress, show, warning -> {});
  }

  /** As {@link #local(TableLookup, Operation, Mode, dev.resurfacer.progress.Progress, int)}, telling {@code warnings} of each as it is known. */
  public static dev.resurfacer.report.Readout local(
      TableLookup lookup,
      Operation operation,
      Mode mode,
      dev.resurfacer.progress.Progress progress,
      int show,
      java.util.function.Consumer<String> warnings) {
    try (Target<?> target = Formats.resolve(lookup, declaredLocally(operation))) {
      requireDeclaredFormat(lookup, target, operation);
      return target.act(operation, mode, progress, show, warnings);
    }
  }

  /**
   * {@code restore-orphans}: what a {@code remove-orphans --quarantine} run moved, put back by the table's
   * format; the name is asked of the formats {@code remove-orphans} is declared for first, as that verb's is.
   */
  public static dev.resurfacer.report.Readout restoreOrphans(
      TableLookup lookup, String runId, Mode mode) {
    try (Target<?> target = Formats.resolve(lookup, declaredLocally("remove-orphans"))) {
      return target.restoreOrphans(runId, mode);
    }
  }

  /** The formats the local engine declares {@code operation} for (its executors are the formats' own). */
  private static List<Format> declaredLocally(Operation operation) {
    return declaredLocally(operation.name());
  }

  private static List<Format> declaredLocally(String operation) {
    return java.util.Arrays.stream(Format.values())
        .filter(f -> dev.resurfacer.engines.EngineDeclarations.of(ExecutionEngines.LOCAL).stream()
            .anyMatch(
                c -> c.works() && c.format().equals(f.id()) && c.operation().equals(operation)))
        .toList();
  }

  /** Refuses {@code operation} on a table of a format the local engine does not declare it for. */
  private static void requireDeclaredFormat(
      TableLookup lookup, Target<?> target, Operation operation) {
    List<Format> declared = declaredLocally(operation);
    if (declared.contains(target.format()) || declared.isEmpty()) {
      return;
    }
    String instead = operation.insteadOn(target.format());
    throw new UsageException(operation.name() + " works on "
        + String.join(" and ", declared.stream().map(Format::label).toList())
        + " tables: '" + lookup.target() + "' is "
        + String.join(" and ", declared.stream().map(Format::notOne).toList())
        + (instead.isEmpty()
            ? ""
            : " (for " + target.format().label() + " tables use " + instead + ")"));
  }

  /** {@code describe}: the named table's health, read by its format (changes nothing, needs no engine). */
  public static dev.resurfacer.report.Readout describe(TableLookup lookup) {
    try (Target<?> target = Formats.resolve(lookup)) {
      return target.describe();
    }
  }

  /**
   * {@code advise}: the layout the scan reports call for, simulated by the table's format; the reports are
   * read once the format is known and before the table is opened.
   */
  public static dev.resurfacer.layout.Advice advise(
      TableLookup lookup,
      Supplier<dev.resurfacer.layout.ScanReports.Loaded> reports,
      double minGain) {
    try (Target<?> target = Formats.resolve(lookup)) {
      return target.advise(lookup.target(), reports.get(), minGain);
    }
  }

  /** {@code plan}: what compaction with {@code settings} would rewrite in the named table, read by its format. */
  public static dev.resurfacer.report.Readout planCompaction(
      TableLookup lookup, dev.resurfacer.maintain.CompactionSettings settings) {
    try (Target<?> target = Formats.resolve(lookup)) {
      return target.planCompaction(settings);
    }
  }

  /** {@code compact} on the local engine, by the named table's format ({@link Target#compact}). */
  public static dev.resurfacer.report.Readout compact(
      TableLookup lookup,
      dev.resurfacer.maintain.CompactionSettings settings,
      Mode mode,
      dev.resurfacer.progress.Progress progress,
      java.util.function.Consumer<String> groupLines) {
    try (Target<?> target = Formats.resolve(lookup)) {
      return target.compact(settings, mode, progress, groupLines);
    }
  }

  private static <T> Step run(
      Target<T> target,
      ExecutionEngineProvider provider,
      Supplier<EngineSettings> settings,
      Operation operation,
      Mode mode) {
    String format = target.format().id();
    if (ExecutionEngines.declaresRefused(provider.capabilities(), format, operation.name())) {
      throw new UsageException(ExecutionEngines.refusal(
          provider.name(), provider.capabilities(), format, operation.name()));
    }
    ExecutionEngines.refusedSetting(provider.name(), provider.capabilities(), format, operation)
        .ifPresent(why -> {
          throw new UsageException(why);
        });
    try (ExecutionEngine engine = provider.open(settings.get())) {
      // the local engine supplies no executors of its own: the format's built-in ones are it
      List<OperationExecutor<?, T>> executors = provider.name().equals(ExecutionEngines.LOCAL)
          ? target.builtInExecutors()
          : engine.executors(format, target.handleType());
      OperationExecutor<?, T> executor = executors.stream()
          .filter(x -> x.operationType() == operation.getClass())
          .findFirst()
          .orElseThrow(() -> new UsageException(ExecutionEngines.refusal(
              provider.name(), engine.capabilities(), format, operation.name())));
      return execute(executor, operation, target.open(), mode);
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> Step execute(
      OperationExecutor<?, T> executor, Operation operation, T table, Mode mode) {
    try {
      return ((OperationExecutor<Operation, T>) executor).execute(operation, table, mode);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
