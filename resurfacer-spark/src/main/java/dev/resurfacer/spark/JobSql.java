package dev.resurfacer.spark;

import dev.resurfacer.UsageException;
import dev.resurfacer.engines.EngineSettings;
import dev.resurfacer.engines.ExecutionEngine;
import dev.resurfacer.engines.ExecutionEngineProvider;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session of a spark-submit job, seen from our code in the job's own class loader. The job's main
 * class (resurfacer-spark-job) holds the Spark session in the cluster's class loader; the two share
 * only JDK types, so it hands over plain functions: {@code sql} runs a statement under a Spark job group
 * and returns rows as maps of plain Java values, {@code jobs} describes a group's Spark jobs and their
 * stage progress, {@code conf} sets session conf, {@code probe} says why the cluster cannot be reached (checked when the engine opens, before anything runs), {@code redact} adds conf keys to Spark's redaction
 * (before the session starts, to {@code spark.redaction.regex}), {@code describe} names the master without secrets.
 * While a statement runs, its jobs' progress is logged every few seconds when it changes, and once
 * when it ends ({@code dev.resurfacer.maintain.progress}, like every step's progress line).
 */
public final class JobSql implements SparkSql {
  /** The keys of the handed-over map. */
  public static final String SQL = "sql";

  public static final String JOBS = "jobs";
  public static final String CONF = "conf";
  public static final String DESCRIBE = "describe";
  /** Takes a regular expression alternative of conf keys for Spark to redact as well as its own patterns. */
  public static final String REDACT = "redact";
  /** Returns why the job's cluster cannot be reached before its session starts, or null. */
  public static final String PROBE = "probe";

  private static final Logger PROGRESS =
      LoggerFactory.getLogger("dev.resurfacer.maintain.progress");
  private static final long POLL_MILLIS = 5000;

  private final BiFunction<String, String, List<Map<String, Object>>> sql;
  private final Function<String, List<String>> jobs;
  private final String describe;
  private final AtomicLong statements = new AtomicLong();

  private JobSql(
      BiFunction<String, String, List<Map<String, Object>>> sql,
      Function<String, List<String>> jobs,
      String describe) {
    this.sql = sql;
    this.jobs = jobs;
    this.describe = describe;
  }

  @SuppressWarnings("unchecked")
  static JobSql of(Map<String, Object> session, EngineSettings settings) {
    SessionConf conf = SessionConf.of(settings);
    Supplier<String> probe =
        (Supplier<String>) session.getOrDefault(PROBE, (Supplier<String>) () -> null);
    String unreachable = probe.get();
    if (unreachable != null) {
      throw new UsageException(settings.scrub(unreachable));
    }
    BiFunction<String, String, List<Map<String, Object>>> sql =
        (BiFunction<String, String, List<Map<String, Object>>>)
            Objects.requireNonNull(session.get(SQL), "the job hands over no sql function");
    Function<String, List<String>> jobs = (Function<String, List<String>>)
        session.getOrDefault(JOBS, (Function<String, List<String>>) group -> List.of());
    BiConsumer<String, String> setConf = (BiConsumer<String, String>) session.get(CONF);
    if (!conf.values().isEmpty() && setConf == null) {
      throw new IllegalStateException("the job hands over no conf function");
    }
    if (!conf.secretKeys().isEmpty()) {
      Consumer<String> redact = (Consumer<String>)
          Objects.requireNonNull(session.get(REDACT), "the job hands over no redact function");
      redact.accept(conf.redactionAlternatives());
    }
    conf.applyTo(setConf);
    return new JobSql(sql, jobs, String.valueOf(session.get(DESCRIBE)));
  }

  /**
   * The {@code spark} engine on the job's session: the same executors and declarations as over Spark
   * Connect; {@code engines.spark.remote} is not needed (and ignored when the same resurfacer.yml names one).
   */
  public static ExecutionEngineProvider provider(Map<String, Object> session) {
    Map<String, Object> handed = Map.copyOf(session);
    return new ExecutionEngineProvider() {
      @Override
      public String name() {
        return SparkEngine.NAME;
      }

      @Override
      public ExecutionEngine open(EngineSettings settings) {
        settings.rejectUnknown(SparkEngine.KEYS, SparkEngine.PREFIXES);
        return SparkEngine.on(of(handed, settings), settings);
      }
    };
  }

  @Override
  public List<Map<String, Object>> rows(String statement) {
    String group = "resurfacer-" + statements.incrementAndGet();
    Thread watcher = new Thread(() -> watch(group), group + "-progress");
    watcher.setDaemon(true);
    watcher.start();
    try {
      return sql.apply(group, statement);
    } finally {
      watcher.interrupt();
      List<String> ran = jobs.apply(group);
      if (!ran.isEmpty()) {
        PROGRESS.info("engine=spark {}: {}", describe, String.join("; ", ran));
      }
    }
  }

  /** Logs the group's jobs every few seconds while the statement runs, when their progress changed. */
  private void watch(String group) {
    List<String> last = List.of();
    try {
      while (true) {
        Thread.sleep(POLL_MILLIS);
        List<String> now = jobs.apply(group);
        if (!now.isEmpty() && !now.equals(last)) {
          PROGRESS.info("engine=spark {} running: {}", describe, String.join("; ", now));
        }
        last = now;
      }
    } catch (InterruptedException done) {
      // the statement ended
    } catch (RuntimeException e) {
      PROGRESS.debug("engine=spark progress unavailable: {}", e.getMessage());
    }
  }

  @Override
  public String describe() {
    return describe;
  }

  /** The session belongs to the job: it stops it when the run is over. */
  @Override
  public void close() {}
}
