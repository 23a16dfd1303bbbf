package dev.resurfacer.maintain;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.engines.ExecutionEngine;
import dev.resurfacer.engines.ExecutionEngines;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.report.OperationResult;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.report.RunReport;
import dev.resurfacer.report.TableReport;
import dev.resurfacer.report.TableStats;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link MaintenancePlan} against one {@link TableFormat}: for each table, in parallel across
 * tables, take the lease (commit runs only), measure, run its operations in {@link Operation#order()}
 * through the registered executors, measure again, release. A step that fails or is refused does
 * not stop the table's later steps unless their safety depends on it ({@code heldBack}); a table
 * that fails is recorded and the others go on. Engine-specific entry points (such as Iceberg's {@code Resurfacer}) wrap this.
 */
public final class MaintenanceRunner<T> {
  private static final Logger LOG = LoggerFactory.getLogger("dev.resurfacer.maintain");

  private final TableFormat<T> engine;
  private final Map<Class<?>, OperationExecutor<?, T>> executors;
  /** Per execution engine other than local: its executors for this format, by operation type. */
  private final Map<String, Map<Class<?>, OperationExecutor<?, T>>> remote;

  private final Map<String, ExecutionEngine> executionEngines;
  private final int parallel;
  private final Duration leaseTtl;
  private final Progress progress;

  /** An operation and who runs it; {@code executor} is null when the table's engine refuses it, for {@code refusal}. */
  record Planned<T>(Operation operation, OperationExecutor<?, T> executor, String refusal) {}

  public MaintenanceRunner(
      TableFormat<T> engine,
      List<OperationExecutor<?, T>> executors,
      int parallel,
      Duration leaseTtl) {
    this(engine, executors, List.of(), parallel, leaseTtl, Progress.NONE);
  }

  /**
   * @param executionEngines opened engines other than local that a plan entry may name; the local engine
   *     is always there and runs the format's built-in executors and {@code executors}
   * @param progress told of every operation of every table as it finishes
   */
  public MaintenanceRunner(
      TableFormat<T> engine,
      List<OperationExecutor<?, T>> executors,
      List<ExecutionEngine> executionEngines,
      int parallel,
      Duration leaseTtl,
      Progress progress) {
    if (parallel < 1) {
      throw new UsageException("--parallel must be at least 1 (got " + parallel + ")");
    }
    Map<Class<?>, OperationExecutor<?, T>> byType = new LinkedHashMap<>();
    for (OperationExecutor<?, T> e : engine.builtInExecutors()) {
      byType.put(e.operationType(), e);
    }
    for (OperationExecutor<?, T> e : executors) {
      byType.put(e.operationType(), e);
    }
    this.engine = engine;
    this.executors = Map.copyOf(byType);
    Map<String, Map<Class<?>, OperationExecutor<?, T>>> byEngine = new LinkedHashMap<>();
    Map<String, ExecutionEngine> named = new LinkedHashMap<>();
    for (ExecutionEngine e : executionEngines) {
      if (e.name().equals(ExecutionEngines.LOCAL)) {
        continue;
      }
      Map<Class<?>, OperationExecutor<?, T>> ops = new LinkedHashMap<>();
      for (OperationExecutor<?, T> x : e.executors(engine.format().id(), engine.handleType())) {
        ops.put(x.operationType(), x);
      }
      byEngine.put(e.name(), Map.copyOf(ops));
      named.put(e.name(), e);
    }
    this.remote = Map.copyOf(byEngine);
    this.executionEngines = Map.copyOf(named);
    this.parallel = parallel;
    this.leaseTtl = leaseTtl;
    this.progress = progress;
  }

  /** Whether an executor is registered for {@code operation}: what a policy's operations are filtered by for this format. */
  public boolean supports(Operation operation) {
    return executors.containsKey(operation.getClass());
  }

  /**
   * Per table, its operations in run order with who runs each. Namespaces are expanded here; an unknown
   * namespace, operation or engine is an error before anything runs.
   */
  Map<String, List<Planned<T>>> resolve(MaintenancePlan plan) {
    Map<String, Map<String, Planned<T>>> byTable = new LinkedHashMap<>();
    for (Maintain m : plan.entries()) {
      if (!m.engine().equals(ExecutionEngines.LOCAL) && !remote.containsKey(m.engine())) {
        throw new UsageException("engine '" + m.engine() + "' is not open for this run (opened: "
            + String.join(", ", concat(ExecutionEngines.LOCAL, remote.keySet())) + ")");
      }
      List<String> tables = m.namespace() ? engine.tablesIn(m.target()) : List.of(m.target());
      for (String t : tables) {
        Map<String, Planned<T>> ops = byTable.computeIfAbsent(t, k -> new LinkedHashMap<>());
        for (Operation o : m.operations()) {
          if (!executors.containsKey(o.getClass())) {
            throw new UsageException("no executor is registered for operation '" + o.name() + "' ("
                + o.getClass().getName() + ")");
          }
          ops.remove(o.name());
          ops.put(o.name(), plan(t, o, m.engine()));
        }
      }
    }
    Map<String, List<Planned<T>>> out = new LinkedHashMap<>();
    byTable.forEach((t, ops) -> {
      List<Planned<T>> sorted = new ArrayList<>(ops.values());
      sorted.sort(Comparator.comparingInt(p -> p.operation().order()));
      out.put(t, List.copyOf(sorted));
    });
    return out;
  }

  /**
   * Custom operations run here whatever the engine: their executor is the user's code in this JVM. A
   * setting the table's engine would drop is a usage error here, before anything runs.
   */
  private Planned<T> plan(String table, Operation o, String engineName) {
    if (engineName.equals(ExecutionEngines.LOCAL) || o instanceof CustomOperation) {
      return new Planned<>(o, executors.get(o.getClass()), null);
    }
    ExecutionEngines.refusedSetting(
            engineName,
            executionEngines.get(engineName).capabilities(),
            engine.format().id(),
            o)
        .ifPresent(why -> {
          throw new UsageException(table + ": " + why);
        });
    OperationExecutor<?, T> x = remote.get(engineName).get(o.getClass());
    if (x != null) {
      return new Planned<>(o, x, null);
    }
    return new Planned<>(
        o,
        null,
        ExecutionEngines.refusal(
            engineName,
            executionEngines.get(engineName).capabilities(),
            engine.format().id(),
            o.name()));
  }

  private static List<String> concat(String first, java.util.Collection<String> rest) {
    List<String> out = new ArrayList<>();
    out.add(first);
    out.addAll(rest);
    return out;
  }

  public RunReport run(MaintenancePlan plan, Mode mode) {
    Instant started = Instant.now();
    long t0 = System.nanoTime();
    Map<String, List<Planned<T>>> work = resolve(plan);
    String owner = owner();
    List<TableReport> reports = new ArrayList<>();
    ExecutorService pool =
        Executors.newFixedThreadPool(Math.min(parallel, Math.max(1, work.size())), r -> {
          Thread th = new Thread(r, "resurfacer-maintain");
          th.setDaemon(true);
          return th;
        });
    long operations = work.values().stream().mapToLong(List::size).sum();
    try (Progress.Task task = progress.start(
        "maintain " + engine.catalogName() + " (" + work.size()
            + (work.size() == 1 ? " table)" : " tables)"),
        "operations",
        operations,
        Progress.UNKNOWN)) {
      List<Future<TableReport>> futures = new ArrayList<>();
      work.forEach((table, ops) ->
          futures.add(pool.submit(() -> maintainTable(table, ops, mode, owner, task))));
      for (Future<TableReport> f : futures) {
        try {
          reports.add(f.get());
        } catch (ExecutionException e) {
          throw new IllegalStateException(
              "maintaining a table threw outside its report", e.getCause());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted", e);
        }
      }
    } finally {
      pool.shutdownNow();
    }
    return new RunReport(
        RunReport.SCHEMA_VERSION,
        mode.name().toLowerCase(java.util.Locale.ROOT),
        started.toString(),
        millisSince(t0),
        reports);
  }

  private TableReport maintainTable(
      String table, List<Planned<T>> planned, Mode mode, String owner, Progress.Task task) {
    int[] advanced = {0};
    try {
      return maintainTable(
          table,
          planned,
          mode,
          owner,
          () -> {
            advanced[0]++;
            task.advance(1, 0);
          },
          task);
    } finally {
      // a table that could not be opened or leased skips all its operations: they are behind us too
      task.advance(planned.size() - advanced[0], 0);
    }
  }

  /** @param operationDone called once an operation has its result */
  private TableReport maintainTable(
      String table,
      List<Planned<T>> planned,
      Mode mode,
      String owner,
      Runnable operationDone,
      Progress.Task task) {
    List<Operation> ops = planned.stream().map(Planned::operation).toList();
    long t0 = System.nanoTime();
    String catalog = engine.catalogName();
    T handle;
    try {
      handle = engine.open(table);
    } catch (Exception e) {
      return notRun(
          catalog,
          table,
          "open",
          Outcome.FAILED,
          "cannot open table: " + rootMessage(e),
          t0,
          ops,
          "the table could not be opened");
    }
    AutoCloseable lease = null;
    if (mode == Mode.COMMIT) {
      try {
        lease = engine.lease(handle, owner, leaseTtl);
      } catch (LeaseHeld e) {
        return notRun(
            catalog,
            table,
            "lease",
            Outcome.SKIPPED,
            "skipped: " + e.getMessage(),
            t0,
            ops,
            "another run holds the table's lease");
      } catch (Exception e) {
        return notRun(
            catalog,
            table,
            "lease",
            Outcome.FAILED,
            "cannot take the table's lease: " + rootMessage(e),
            t0,
            ops,
            "the lease could not be taken");
      }
    }
    // measured under the lease: another run's commits cannot land between the measurement and our
    // first operation
    TableStats before;
    try {
      engine.refresh(handle);
      before = engine.stats(handle);
    } catch (Exception e) {
      release(lease, catalog, table);
      String msg = "cannot measure the table: " + rootMessage(e);
      log(catalog, table, "measure", Outcome.FAILED, millisSince(t0), msg);
      return new TableReport(
          catalog,
          table,
          Outcome.FAILED,
          msg,
          millisSince(t0),
          null,
          null,
          ops.stream().map(o -> skipped(o, "the table could not be measured")).toList());
    }
    List<OperationResult> results = new ArrayList<>();
    List<OperationResult> failures = new ArrayList<>();
    try {
      for (Planned<T> p : planned) {
        Operation op = p.operation();
        if (!failures.isEmpty()) {
          Optional<String> held =
              heldBack(op, handle, failures.get(0), Duration.ofNanos(System.nanoTime() - t0));
          if (held.isPresent()) {
            results.add(skipped(op, held.get()));
            log(catalog, table, op.name(), Outcome.SKIPPED, 0, held.get());
            operationDone.run();
            continue;
          }
        }
        task.note(table + " " + op.name());
        OperationResult r = p.executor() == null
            ? new OperationResult(op.name(), Outcome.REFUSED, p.refusal(), 0, Map.of())
            : truthful(runOne(op, p.executor(), handle, mode), p.executor(), mode);
        results.add(r);
        operationDone.run();
        log(catalog, table, op.name(), r.outcome(), r.durationMs(), r.message());
        if (r.outcome() == Outcome.FAILED || r.outcome() == Outcome.REFUSED) {
          failures.add(r);
        }
      }
    } finally {
      release(lease, catalog, table);
    }
    Outcome tableOutcome = mode == Mode.COMMIT ? Outcome.DONE : Outcome.PREVIEWED;
    String tableMessage = null;
    if (!failures.isEmpty()) {
      // a failure outranks a refusal, as in the run's exit code
      tableOutcome = failures.stream().anyMatch(f -> f.outcome() == Outcome.FAILED)
          ? Outcome.FAILED
          : Outcome.REFUSED;
      OperationResult first = failures.get(0);
      tableMessage = first.operation() + " " + first.outcome().json() + ": " + first.message()
          + (failures.size() == 1
              ? ""
              : " (and "
                  + String.join(
                      ", ",
                      failures.subList(1, failures.size()).stream()
                          .map(f -> f.operation() + " " + f.outcome().json())
                          .toList())
                  + ")");
    }
    TableStats after = null;
    if (mode == Mode.COMMIT) {
      try {
        engine.refresh(handle);
        after = engine.stats(handle);
      } catch (Exception e) {
        LOG.warn(
            "table={}.{} operation=measure outcome=failed message=\"{}\"",
            catalog,
            table,
            rootMessage(e));
      }
    }
    return new TableReport(
        catalog, table, tableOutcome, tableMessage, millisSince(t0), before, after, results);
  }

  private static void release(AutoCloseable lease, String catalog, String table) {
    if (lease != null) {
      try {
        lease.close();
      } catch (Exception e) {
        LOG.warn(
            "table={}.{} operation=lease outcome=failed message=\"cannot release: {}\"",
            catalog,
            table,
            rootMessage(e));
      }
    }
  }

  @SuppressWarnings("unchecked")
  private OperationResult runOne(
      Operation op, OperationExecutor<?, T> chosen, T handle, Mode mode) {
    OperationExecutor<Operation, T> executor = (OperationExecutor<Operation, T>) chosen;
    long t0 = System.nanoTime();
    try {
      engine.refresh(handle);
      Step step = executor.execute(op, handle, mode);
      return new OperationResult(
          op.name(), step.outcome(), step.message(), millisSince(t0), step.metrics());
    } catch (SafetyRefusal e) {
      return new OperationResult(
          op.name(), Outcome.REFUSED, e.getMessage(), millisSince(t0), Map.of());
    } catch (Exception e) {
      return new OperationResult(
          op.name(), Outcome.FAILED, rootMessage(e), millisSince(t0), Map.of());
    }
  }

  /**
   * Why {@code op} does not run after {@code failure}, an earlier step of the same table that failed or
   * was refused, or empty when its safety does not depend on that step (docs/user-guide.md, "When a
   * step fails"). Every step commits on its own and re-reads the table first, so most steps do not
   * depend on the ones before. The exceptions delete what nothing references once it is old enough
   * (orphan files, Delta's vacuum and log entries): the failed step may have left files it wrote,
   * or a commit whose outcome it could not learn, and those are safe from that deletion only while
   * they are younger than its age guard. So such a step runs only when its guard is longer than the
   * table's run has lasted, which no file written by this run can have outlived.
   */
  private Optional<String> heldBack(
      Operation op, T handle, OperationResult failure, Duration elapsed) {
    Optional<Duration> guard;
    if (op instanceof RemoveOrphans r) {
      guard = Optional.of(r.olderThan());
    } else if (op instanceof Vacuum v) {
      guard = v.retention() != null ? Optional.of(v.retention()) : tableRetention(handle, op);
    } else if (op instanceof CleanupLog c) {
      guard = c.retention() != null ? Optional.of(c.retention()) : tableRetention(handle, op);
    } else {
      return Optional.empty();
    }
    String after = "after " + failure.operation() + " " + failure.outcome().json() + ", ";
    if (guard.isEmpty()) {
      return Optional.of(
          after + "not run: its age guard is the table's own setting, which could not be read");
    }
    if (guard.get().compareTo(elapsed) <= 0) {
      return Optional.of(
          after + "not run: its age guard (" + dev.resurfacer.units.Durations.format(guard.get())
              + ") is not longer than this table's run so far ("
              + dev.resurfacer.units.Durations.format(elapsed)
              + "), so files the failed step wrote could be taken for unreferenced ones");
    }
    return Optional.empty();
  }

  private Optional<Duration> tableRetention(T handle, Operation op) {
    try {
      return engine.tableRetention(handle, op);
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  /**
   * An executor's result as the run may report it: {@code previewed} only in a preview run and
   * {@code done} only in a commit run; anything else is the executor's bug, reported as a failure
   * that names it rather than passed on as what happened.
   */
  private static OperationResult truthful(
      OperationResult r, OperationExecutor<?, ?> executor, Mode mode) {
    boolean wrong =
        mode == Mode.COMMIT ? r.outcome() == Outcome.PREVIEWED : r.outcome() == Outcome.DONE;
    if (!wrong) {
      return r;
    }
    String who = (executor instanceof OperationExecutor.Of<?, ?> of ? of.body() : executor)
        .getClass()
        .getName();
    return new OperationResult(
        r.operation(),
        Outcome.FAILED,
        who + " reported " + r.outcome().json() + " in a "
            + mode.name().toLowerCase(java.util.Locale.ROOT) + " run (" + r.message() + ")",
        r.durationMs(),
        r.metrics());
  }

  private static OperationResult skipped(Operation op, String why) {
    return new OperationResult(op.name(), Outcome.SKIPPED, why, 0, Map.of());
  }

  private static void log(
      String catalog, String table, String operation, Outcome outcome, long ms, String message) {
    String line = "table={}.{} operation={} outcome={} duration_ms={} message=\"{}\"";
    Object[] args = {
      catalog,
      table,
      operation,
      outcome.json(),
      ms,
      message == null ? "" : message.replace('"', '\'')
    };
    if (outcome == Outcome.FAILED || outcome == Outcome.REFUSED) {
      LOG.warn(line, args);
    } else {
      LOG.info(line, args);
    }
  }

  private static long millisSince(long t0) {
    return (System.nanoTime() - t0) / 1_000_000;
  }

  private static String owner() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "unknown-host";
    }
    return "resurfacer@" + host + "/" + UUID.randomUUID().toString().substring(0, 8);
  }

  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    if (t != e && e.getMessage() != null && !e.getMessage().contains(m)) {
      m = e.getMessage() + ": " + m;
    }
    return m.lines().findFirst().orElse(m);
  }

  /** The report of a table none of whose operations ran, logged as {@code stage}; each operation skipped for {@code why}. */
  private static TableReport notRun(
      String catalog,
      String table,
      String stage,
      Outcome outcome,
      String message,
      long t0,
      List<Operation> ops,
      String why) {
    log(catalog, table, stage, outcome, millisSince(t0), message);
    return new TableReport(
        catalog,
        table,
        outcome,
        message,
        millisSince(t0),
        null,
        null,
        ops.stream().map(o -> skipped(o, why)).toList());
  }
}
