package dev.resurfacer.serve;

import dev.resurfacer.layout.Advice;
import dev.resurfacer.layout.ScanReports;
import dev.resurfacer.maintain.Compact;
import dev.resurfacer.maintain.Maintain;
import dev.resurfacer.maintain.Operation;
import dev.resurfacer.maintain.TableSignals;
import dev.resurfacer.policy.Policies;
import dev.resurfacer.policy.TablePolicy;
import dev.resurfacer.policy.Triggers;
import dev.resurfacer.report.Outcome;
import dev.resurfacer.report.TableReport;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler of {@code serve}: every {@code interval} it reads each table's signals (metadata
 * only), checks its triggers, and runs the tables whose triggers fired, worst health first, at most
 * {@code concurrency} at once, never a table twice in this process and never sooner than
 * {@code min-interval} after its last run in any process (the history is shared); the table lease
 * keeps other processes off a table while it runs. A catalog or table that errs is left alone for a
 * doubling backoff. {@link #stop} lets running work finish its commits.
 */
public final class MaintenanceService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger("dev.resurfacer.serve");

  private final List<ServedCatalog<?>> catalogs;
  private final Policies policies;
  private final ServeSettings settings;
  private final RunHistory history;
  private final Clock clock;
  private final boolean act;
  private final Map<String, TableState> states = new ConcurrentHashMap<>();
  private final Map<String, Backoff> catalogBackoff = new ConcurrentHashMap<>();
  private final Set<Long> running = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService ticker;
  private final ExecutorService workers;
  private final Instant startedAt;
  private volatile boolean stopping;
  private volatile Instant lastTick;

  private record Backoff(Instant until, int failures) {}

  /**
   * @param act false: watch only (evaluate and show what fired, run nothing), as every verb previews without {@code --yes}
   */
  public MaintenanceService(
      List<ServedCatalog<?>> catalogs,
      Policies policies,
      ServeSettings settings,
      RunHistory history,
      Clock clock,
      boolean act) {
    this.act = act;
    this.catalogs = List.copyOf(catalogs);
    this.policies = policies;
    this.settings = settings;
    this.history = history;
    this.clock = clock;
    this.startedAt = clock.instant();
    this.ticker =
        Executors.newSingleThreadScheduledExecutor(r -> thread(r, "resurfacer-serve-scheduler"));
    this.workers = Executors.newFixedThreadPool(
        settings.concurrency(), r -> thread(r, "resurfacer-serve-run"));
  }

  private static Thread thread(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /** Closes the runs a dead process left open, then evaluates every {@code interval}. */
  public void start() {
    List<Long> closed = history.markInterrupted(staleAfter(), clock.instant());
    if (!closed.isEmpty()) {
      LOG.warn(
          "operation=serve outcome=interrupted message=\"runs {} were left running by a process that is gone; marked interrupted\"",
          closed);
    }
    try {
      register();
    } catch (RuntimeException e) {
      LOG.warn("operation=list outcome=failed message=\"{}\"", message(e));
    }
    ticker.scheduleWithFixedDelay(
        this::tick, 0, settings.interval().toMillis(), TimeUnit.MILLISECONDS);
  }

  private Duration staleAfter() {
    Duration four = settings.interval().multipliedBy(4);
    return four.compareTo(Duration.ofMinutes(2)) > 0 ? four : Duration.ofMinutes(2);
  }

  private void tick() {
    try {
      evaluate();
    } catch (Throwable t) {
      LOG.warn(
          "operation=evaluate outcome=failed message=\"{}\"",
          String.valueOf(t.getMessage()).replace('"', '\''));
    }
  }

  /** One evaluation of every table; launches the runs whose triggers fired. Public for tests that step it by hand. */
  public synchronized void evaluate() {
    if (stopping) {
      return;
    }
    Instant now = clock.instant();
    lastTick = now;
    history.markInterrupted(staleAfter(), now);
    history.heartbeat(Set.copyOf(running), now);
    Set<String> paused = history.paused();
    List<Candidate> candidates = new ArrayList<>();
    Map<ServedCatalog<?>, List<String>> listed = listAll(now, paused);
    for (Map.Entry<ServedCatalog<?>, List<String>> entry : listed.entrySet()) {
      ServedCatalog<?> catalog = entry.getKey();
      for (String table : entry.getValue()) {
        Candidate c = evaluate(catalog, table, paused.contains(catalog.name() + "." + table), now);
        if (c != null) {
          candidates.add(c);
        }
      }
    }
    candidates.sort(Comparator.comparingInt(c -> c.assessment().score()));
    for (Candidate c : act ? candidates : List.<Candidate>of()) {
      if (running.size() >= settings.concurrency() || stopping) {
        break;
      }
      launch(c, now);
    }
  }

  /**
   * Lists every catalog and shows each table not seen yet (unread, its signals unknown), so the
   * dashboard lists every known table from the start rather than as each is first read.
   */
  public synchronized void register() {
    listAll(clock.instant(), history.paused());
  }

  /** Every catalog that is not backing off, listed before any table is read: each known table is in {@link #tables()} at once. */
  private Map<ServedCatalog<?>, List<String>> listAll(Instant now, Set<String> paused) {
    Map<ServedCatalog<?>, List<String>> listed = new java.util.LinkedHashMap<>();
    for (ServedCatalog<?> catalog : catalogs) {
      Backoff b = catalogBackoff.get(catalog.name());
      if (b != null && b.until().isAfter(now)) {
        continue;
      }
      try {
        List<String> tables = catalog.tables();
        listed.put(catalog, tables);
        catalogBackoff.remove(catalog.name());
        for (String table : tables) {
          states.putIfAbsent(
              catalog.name() + "." + table,
              new TableState(
                  catalog.name(),
                  table,
                  null,
                  null,
                  null,
                  null,
                  null,
                  0,
                  null,
                  paused.contains(catalog.name() + "." + table),
                  policies.triggers(table).any()));
        }
      } catch (RuntimeException e) {
        Backoff next = backoff(b == null ? 0 : b.failures(), now);
        catalogBackoff.put(catalog.name(), next);
        LOG.warn(
            "catalog={} operation=list outcome=failed message=\"{}; next try after {}\"",
            catalog.name(),
            message(e),
            next.until());
      }
    }
    return listed;
  }

  private record Candidate(
      ServedCatalog<?> catalog, String table, Triggers triggers, Assessment assessment) {}

  private Candidate evaluate(ServedCatalog<?> catalog, String table, boolean paused, Instant now) {
    String key = catalog.name() + "." + table;
    Triggers triggers = policies.triggers(table);
    TableState prev = states.get(key);
    if (prev != null
        && (prev.runningId() != null
            || (prev.backoffUntil() != null && prev.backoffUntil().isAfter(now)))) {
      states.put(key, with(prev, paused));
      return null;
    }
    Optional<HistoryRun> last = history.lastRun(catalog.name(), table);
    Instant lastStart = last.map(HistoryRun::startedAt).orElse(null);
    TableSignals signals;
    try {
      signals = catalog.signals(
          table, lastStart, minInputFiles(policies.effective(table).policy()));
    } catch (RuntimeException e) {
      int failures = prev == null ? 1 : prev.failuresInARow() + 1;
      Backoff b = backoff(failures - 1, now);
      states.put(
          key,
          new TableState(
              catalog.name(),
              table,
              prev == null ? null : prev.signals(),
              prev == null ? null : prev.assessment(),
              now,
              message(e),
              b.until(),
              failures,
              null,
              paused,
              triggers.any()));
      LOG.warn(
          "table={} operation=signals outcome=failed message=\"{}; next try after {}\"",
          key,
          message(e),
          b.until());
      return null;
    }
    Assessment a = Assessment.of(triggers, signals, lastStart, now);
    states.put(
        key,
        new TableState(
            catalog.name(), table, signals, a, now, null, null, 0, null, paused, triggers.any()));
    if (paused || !triggers.any() || a.fired().isEmpty()) {
      return null;
    }
    if (last.isPresent()) {
      HistoryRun r = last.get();
      if (HistoryRun.RUNNING.equals(r.status())) {
        return null; // another process is on it; the lease would turn us away anyway
      }
      Instant end = r.finishedAt() == null ? r.startedAt() : r.finishedAt();
      if (end.plus(settings.minInterval()).isAfter(now)) {
        return null;
      }
    }
    return new Candidate(catalog, table, triggers, a);
  }

  /** The compaction's {@code min-input-files} (Iceberg's bin-pack default 5): fewer small files in a partition are not rewritten. */
  static int minInputFiles(TablePolicy policy) {
    String v = policy.compact().options().get("min-input-files");
    try {
      return v == null ? 5 : Math.max(1, Integer.parseInt(v.trim()));
    } catch (NumberFormatException e) {
      return 5;
    }
  }

  private static TableState with(TableState s, boolean paused) {
    return new TableState(
        s.catalog(),
        s.table(),
        s.signals(),
        s.assessment(),
        s.evaluatedAt(),
        s.error(),
        s.backoffUntil(),
        s.failuresInARow(),
        s.runningId(),
        paused,
        s.triggersSet());
  }

  private static TableState running(TableState s, Long id, Instant backoffUntil, int failures) {
    return new TableState(
        s.catalog(),
        s.table(),
        s.signals(),
        s.assessment(),
        s.evaluatedAt(),
        s.error(),
        backoffUntil,
        failures,
        id,
        s.paused(),
        s.triggersSet());
  }

  private void launch(Candidate c, Instant now) {
    String key = c.catalog().name() + "." + c.table();
    TablePolicy policy = policies.effective(c.table()).policy();
    List<String> enabled = Maintain.fromPolicy(c.table(), policy).operations().stream()
        .map(Operation::name)
        .toList();
    List<String> fired = c.assessment().conditions().stream()
        .filter(x -> x.trigger() && x.reached())
        .map(Assessment.Condition::name)
        .toList();
    List<String> operations = c.triggers().operationsFor(fired, enabled);
    String trigger = String.join("; ", c.assessment().fired());
    long id = history.start(c.catalog().name(), c.table(), trigger, operations, now);
    running.add(id);
    states.computeIfPresent(key, (k, s) -> running(s, id, null, s.failuresInARow()));
    LOG.info(
        "table={} operation=serve outcome=started run={} trigger=\"{}\" operations={}",
        key,
        id,
        trigger,
        operations);
    try {
      workers.submit(() -> run(c, id, policy, operations));
    } catch (RejectedExecutionException e) {
      running.remove(id);
      history.abandon(
          id,
          HistoryRun.INTERRUPTED,
          "serve was stopping; the run never started",
          clock.instant(),
          0);
      states.computeIfPresent(key, (k, s) -> running(s, null, null, s.failuresInARow()));
    }
  }

  private void run(Candidate c, long id, TablePolicy policy, List<String> operations) {
    String key = c.catalog().name() + "." + c.table();
    long t0 = System.nanoTime();
    Instant backoffUntil = null;
    int failures = 0;
    try {
      TableReport report = c.catalog().maintain(c.table(), policy, operations, settings.lease());
      long ms = (System.nanoTime() - t0) / 1_000_000;
      history.finish(id, report, clock.instant(), ms);
      LOG.info(
          "table={} operation=serve outcome={} run={} duration_ms={}",
          key,
          report.outcome().json(),
          id,
          ms);
      if (report.outcome() == Outcome.FAILED || report.outcome() == Outcome.SKIPPED) {
        TableState s = states.get(key);
        failures = (s == null ? 0 : s.failuresInARow()) + 1;
        backoffUntil = backoff(failures - 1, clock.instant()).until();
      }
    } catch (Throwable e) {
      long ms = (System.nanoTime() - t0) / 1_000_000;
      LOG.warn(
          "table={} operation=serve outcome=failed run={} message=\"{}\"", key, id, message(e));
      try {
        history.abandon(id, Outcome.FAILED.json(), message(e), clock.instant(), ms);
      } catch (RuntimeException ignored) {
        // the history is unreachable too; markInterrupted closes the row once this process is gone
      }
      TableState s = states.get(key);
      failures = (s == null ? 0 : s.failuresInARow()) + 1;
      backoffUntil = backoff(failures - 1, clock.instant()).until();
    } finally {
      running.remove(id);
      Instant until = backoffUntil;
      int f = failures;
      states.computeIfPresent(key, (k, s) -> running(s, null, until, f));
    }
  }

  private Backoff backoff(int previousFailures, Instant now) {
    Duration d = settings.backoff();
    for (int i = 0; i < previousFailures && d.compareTo(settings.maxBackoff()) < 0; i++) {
      d = d.multipliedBy(2);
    }
    if (d.compareTo(settings.maxBackoff()) > 0) {
      d = settings.maxBackoff();
    }
    return new Backoff(now.plus(d), previousFailures + 1);
  }

  /**
   * Pauses a known table (kept in the history, so it holds across restarts and processes); false for
   * an unknown one. Waits for an evaluation under way: it read which tables were paused when it
   * began, and wrote that back over a pause or resume made meanwhile.
   */
  public synchronized boolean pause(String catalog, String table) {
    String key = catalog + "." + table;
    if (!states.containsKey(key)) {
      return false;
    }
    history.pause(catalog, table, clock.instant());
    states.computeIfPresent(key, (k, s) -> with(s, true));
    LOG.info("table={} operation=pause outcome=done", key);
    return true;
  }

  /** Resumes a known table; as {@link #pause}, after an evaluation under way. */
  public synchronized boolean resume(String catalog, String table) {
    String key = catalog + "." + table;
    if (!states.containsKey(key)) {
      return false;
    }
    history.resume(catalog, table);
    states.computeIfPresent(key, (k, s) -> with(s, false));
    LOG.info("table={} operation=resume outcome=done", key);
    return true;
  }

  /**
   * The {@code compact.scan-reports} location of the served table a scan report names (matched as
   * {@code advise} matches, with or without the catalog's name in front); empty when serve has not
   * seen such a table or its policy sets no location.
   */
  public Optional<java.nio.file.Path> scanReportLocation(String reportedTable) {
    for (TableState t : tables()) {
      if (ScanReports.matches(reportedTable, t.table())
          || ScanReports.matches(reportedTable, t.qualified())) {
        String where =
            policies.effective(t.table()).policy().compact().options().get(Compact.SCAN_REPORTS);
        return where == null || where.isBlank()
            ? Optional.empty()
            : Optional.of(java.nio.file.Path.of(where));
      }
    }
    return Optional.empty();
  }

  /**
   * {@code advise} on a served table, by the same code as the CLI verb, from its policy's
   * {@code compact.scan-reports} and {@code compact.layout-min-gain}.
   *
   * @param advice null when the table cannot be advised ({@code unavailable} says why)
   */
  public record TableAdvice(String catalog, String table, Advice advice, String unavailable) {}

  /** Empty for a table serve has not seen. */
  public Optional<TableAdvice> advise(String catalog, String table) {
    if (!states.containsKey(catalog + "." + table)) {
      return Optional.empty();
    }
    ServedCatalog<?> served =
        catalogs.stream().filter(c -> c.name().equals(catalog)).findFirst().orElse(null);
    if (served == null) {
      return Optional.empty();
    }
    Map<String, String> options = policies.effective(table).policy().compact().options();
    String where = options.get(Compact.SCAN_REPORTS);
    if (where == null || where.isBlank()) {
      return Optional.of(new TableAdvice(
          catalog,
          table,
          null,
          "no scan reports: the table's policy sets no compact.scan-reports"));
    }
    if (!served.advises()) {
      return Optional.of(new TableAdvice(
          catalog, table, null, "this table's format has no layout advice in this build"));
    }
    double minGain = dev.resurfacer.layout.AutoLayoutSteps.minGain(options);
    java.nio.file.Path dir = java.nio.file.Path.of(where);
    if (!java.nio.file.Files.exists(dir)) {
      return Optional.of(new TableAdvice(catalog, table, null, "no scan reports yet at " + where));
    }
    return Optional.of(new TableAdvice(
        catalog, table, served.advise(table, ScanReports.read(dir, table), minGain), null));
  }

  /** Every table seen, by name. */
  public List<TableState> tables() {
    List<TableState> out = new ArrayList<>(states.values());
    out.sort(Comparator.comparing(TableState::qualified));
    return out;
  }

  public RunHistory history() {
    return history;
  }

  public ServeSettings settings() {
    return settings;
  }

  public Instant now() {
    return clock.instant();
  }

  public Instant startedAt() {
    return startedAt;
  }

  /** When the scheduler last evaluated; null before the first evaluation. */
  public Instant lastEvaluation() {
    return lastTick;
  }

  /** False when serve only watches (started without {@code --yes}). */
  public boolean acting() {
    return act;
  }

  public boolean stopping() {
    return stopping;
  }

  /** Catalog names whose listing is backing off. */
  public Set<String> catalogsInBackoff() {
    Instant now = clock.instant();
    Set<String> out = new HashSet<>();
    catalogBackoff.forEach((k, v) -> {
      if (v.until().isAfter(now)) {
        out.add(k);
      }
    });
    return out;
  }

  /**
   * Starts no more runs and waits up to {@code grace} for the running ones to finish their commits.
   * A run still going after that is recorded as interrupted and abandoned with the process: every
   * commit is atomic, so its table holds a whole step or none of it.
   */
  public void stop(Duration grace) {
    stopping = true;
    ticker.shutdownNow();
    synchronized (this) {
      workers.shutdown();
    }
    try {
      if (!running.isEmpty()) {
        LOG.info(
            "operation=stop message=\"waiting up to {} for {} running run(s) to finish\"",
            grace,
            running.size());
      }
      if (!workers.awaitTermination(Math.max(1, grace.toMillis()), TimeUnit.MILLISECONDS)) {
        for (long id : Set.copyOf(running)) {
          history.abandon(
              id,
              HistoryRun.INTERRUPTED,
              "serve stopped and its shutdown-grace (" + grace
                  + ") ran out before the run finished",
              clock.instant(),
              0);
        }
        workers.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stop(settings.shutdownGrace());
    catalogs.forEach(ServedCatalog::close);
  }

  private static String message(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    return m.lines().findFirst().orElse(m).replace('"', '\'');
  }
}
