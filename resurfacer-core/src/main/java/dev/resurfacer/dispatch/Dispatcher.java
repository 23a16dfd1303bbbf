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
  public static Outcome onEngine(TableLookup lookup, ExecutionEngineProvider provider, Supplier<EngineSettings> settings,
      Operation operation, Mode mode) {
    try (Target<?> target = Formats.resolve(lookup)) {
      return new Outcome(target.name(), target.format(), run(target, provider, settings, operation, mode));
    }
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
  public static dev.resurfacer.layout.Advice advise(TableLookup lookup, Supplier<dev.resurfacer.layout.ScanReports.Loaded> reports,
      double minGain) {
    try (Target<?> target = Formats.resolve(lookup)) {
      return target.advise(lookup.target(), reports.get(), minGain);
    }
  }

  /** {@code plan}: what compaction with {@code settings} would rewrite in the named table, read by its format. */
  public static dev.resurfacer.report.Readout planCompaction(TableLookup lookup, dev.resurfacer.maintain.CompactionSettings settings) {
    try (Target<?> target = Formats.resolve(lookup)) {
      return target.planCompaction(settings);
    }
  }

  /** {@code compact} on the local engine, by the named table's format ({@link Target#compact}). */
  public static dev.resurfacer.report.Readout compact(TableLookup lookup, dev.resurfacer.maintain.CompactionSettings settings, Mode mode,
      dev.resurfacer.progress.Progress progress, java.util.function.Consumer<String> groupLines) {
    try (Target<?> target = Formats.resolve(lookup)) {
      return target.compact(settings, mode, progress, groupLines);
    }
  }

  private static <T> Step run(Target<T> target, ExecutionEngineProvider provider, Supplier<EngineSettings> settings,
      Operation operation, Mode mode) {
    String format = target.format().id();
    if (ExecutionEngines.declaresRefused(provider.capabilities(), format, operation.name())) {
      throw new UsageException(ExecutionEngines.refusal(provider.name(), provider.capabilities(), format, operation.name()));
    }
    ExecutionEngines.refusedSetting(provider.name(), provider.capabilities(), format, operation).ifPresent(why -> {
      throw new UsageException(why);
    });
    try (ExecutionEngine engine = provider.open(settings.get())) {
      // the local engine supplies no executors of its own: the format's built-in ones are it
      List<OperationExecutor<?, T>> executors = provider.name().equals(ExecutionEngines.LOCAL) ? target.builtInExecutors()
          : engine.executors(format, target.handleType());
      OperationExecutor<?, T> executor = executors.stream()
          .filter(x -> x.operationType() == operation.getClass()).findFirst()
          .orElseThrow(() -> new UsageException(ExecutionEngines.refusal(provider.name(), engine.capabilities(), format, operation.name())));
      return execute(executor, operation, target.open(), mode);
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> Step execute(OperationExecutor<?, T> executor, Operation operation, T table, Mode mode) {
    try {
      return ((OperationExecutor<Operation, T>) executor).execute(operation, table, mode);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
