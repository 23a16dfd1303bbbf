package dev.resurfacer.spark.job;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.spark.JobExecutionStatus;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkJobInfo;
import org.apache.spark.SparkStageInfo;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.JavaSparkStatusTracker;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The job's Spark session, started on first use (a run that only previews local tables, or stops at a
 * usage error, never starts an application), handed to our class loader as JDK functions only: see
 * {@code dev.resurfacer.spark.JobSql} on the other side for the keys. Rows come back as maps of plain
 * Java values (Scala maps and sequences, and nested rows, converted); a failure comes back as an
 * {@link IllegalStateException} carrying Spark's message.
 */
final class JobSession implements AutoCloseable {
  /** Spark's own {@code spark.redaction.regex} when a job sets none (Spark 4.1's default; JobSessionTest checks it against Spark's). */
  static final String SPARK_REDACTION_DEFAULT = "(?i)secret|password|token|access[.]?key";

  static final String REDACTION = "spark.redaction.regex";
  static final String OPTIONS_REDACTION = "spark.sql.redaction.options.regex";
  private static final int PROBE_MILLIS = 5000;
  private SparkSession session;
  private final List<String> redact = new ArrayList<>();

  Map<String, Object> handedOver() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("sql", (BiFunction<String, String, List<Map<String, Object>>>)
        (group, sql) -> onSparksLoader(() -> rows(group, sql)));
    out.put("jobs", (Function<String, List<String>>) group -> onSparksLoader(() -> jobs(group)));
    out.put("conf", (BiConsumer<String, String>) (k, v) -> onSparksLoader(() -> {
      session().conf().set(k, v);
      return null;
    }));
    out.put("redact", (Consumer<String>) keys -> onSparksLoader(() -> {
      redact(keys);
      return null;
    }));
    out.put("probe", (Supplier<String>) this::probe);
    out.put("describe", describe(System.getProperty("spark.master", "the job's master")));
    return Map.copyOf(out);
  }

  /**
   * Runs {@code work} with the context class loader set to Spark's: our side calls in with its own
   * set, and Spark looks up its session implementation, catalogs and Iceberg's classes through it.
   */
  private static <T> T onSparksLoader(Supplier<T> work) {
    Thread thread = Thread.currentThread();
    ClassLoader caller = thread.getContextClassLoader();
    thread.setContextClassLoader(JobSession.class.getClassLoader());
    try {
      return work.get();
    } finally {
      thread.setContextClassLoader(caller);
    }
  }

  private synchronized SparkSession session() {
    if (session == null) {
      var builder = SparkSession.builder();
      if (!redact.isEmpty()) {
        // the application's UI, event log and SQL tab redact by this pattern, read once at start:
        // ours extend the cluster's
        builder.config(
            REDACTION, extended(new SparkConf().get(REDACTION, SPARK_REDACTION_DEFAULT), redact));
      }
      session = builder.getOrCreate();
    }
    return session;
  }

  /**
   * Conf keys (a regular expression alternative) whose values Spark must redact too: before the session
   * starts, into {@code spark.redaction.regex}; after, into the session's SQL options pattern (the
   * only one Spark lets a running session change), which redacts the conf each statement ran with.
   */
  private synchronized void redact(String keys) {
    if (session == null) {
      redact.add(keys);
    } else {
      session
          .conf()
          .set(OPTIONS_REDACTION, extended(session.conf().get(OPTIONS_REDACTION), List.of(keys)));
    }
  }

  static String extended(String current, List<String> alternatives) {
    StringBuilder out = new StringBuilder(current == null ? "" : current);
    for (String a : alternatives) {
      out.append(out.length() == 0 ? "" : "|").append(a);
    }
    return out.toString();
  }

  /** One statement's rows; its Spark jobs run under {@code group} (the calling thread's job group), for {@link #jobs}. */
  private List<Map<String, Object>> rows(String group, String sql) {
    SparkContext context = session().sparkContext();
    context.setJobGroup(group, group, false);
    try {
      List<Map<String, Object>> out = new ArrayList<>();
      for (Row row : session().sql(sql).collectAsList()) {
        out.add(plain(row));
      }
      return out;
    } catch (RuntimeException e) {
      throw new IllegalStateException(firstLine(e), e);
    } catch (Exception e) {
      // Scala code throws checked exceptions (AnalysisException) undeclared
      throw new IllegalStateException(firstLine(e), e);
    } finally {
      context.clearJobGroup();
    }
  }

  /**
   * The job group's Spark jobs from the driver's status tracker, in the order they started: id, status
   * and tasks done of the stages that ran. A stage never submitted in a finished job was skipped (its
   * shuffle output existed already): counted apart, its tasks are not work left undone.
   */
  private synchronized List<String> jobs(String group) {
    if (session == null) {
      return List.of();
    }
    JavaSparkStatusTracker tracker =
        JavaSparkContext.fromSparkContext(session.sparkContext()).statusTracker();
    List<String> out = new ArrayList<>();
    int[] ids = tracker.getJobIdsForGroup(group).clone();
    java.util.Arrays.sort(ids);
    for (int jobId : ids) {
      SparkJobInfo job = tracker.getJobInfo(jobId);
      if (job == null) {
        continue;
      }
      boolean finished =
          job.status() != JobExecutionStatus.RUNNING && job.status() != JobExecutionStatus.UNKNOWN;
      long tasks = 0;
      long done = 0;
      long running = 0;
      long failed = 0;
      int skipped = 0;
      for (int stageId : job.stageIds()) {
        SparkStageInfo stage = tracker.getStageInfo(stageId);
        if (stage == null) {
          continue;
        }
        if (finished && stage.submissionTime() <= 0) {
          skipped++;
          continue;
        }
        tasks += stage.numTasks();
        done += stage.numCompletedTasks();
        running += stage.numActiveTasks();
        failed += stage.numFailedTasks();
      }
      out.add("job " + jobId + " " + job.status().name().toLowerCase(java.util.Locale.ROOT) + " ("
          + job.stageIds().length
          + " stage(s), " + (skipped > 0 ? skipped + " skipped, " : "") + done + "/" + tasks
          + " task(s) done"
          + (running > 0 ? ", " + running + " running" : "")
          + (failed > 0 ? ", " + failed + " failed" : "") + ")");
    }
    return out;
  }

  static Map<String, Object> plain(Row row) {
    String[] names = row.schema().fieldNames();
    Map<String, Object> values = new LinkedHashMap<>();
    for (int i = 0; i < row.size(); i++) {
      values.put(names[i], plain(row.get(i)));
    }
    return values;
  }

  static Object plain(Object value) {
    if (value instanceof Row r) {
      return plain(r);
    }
    if (value instanceof scala.collection.Map<?, ?> m) {
      Map<Object, Object> out = new LinkedHashMap<>();
      scala.jdk.javaapi.CollectionConverters.asJava(m)
          .forEach((k, v) -> out.put(plain(k), plain(v)));
      return out;
    }
    if (value instanceof scala.collection.Seq<?> seq) {
      List<Object> out = new ArrayList<>();
      scala.jdk.javaapi.CollectionConverters.asJava(seq).forEach(v -> out.add(plain(v)));
      return out;
    }
    return value;
  }

  /** Before the session starts: why the job's master cannot be reached, or null. */
  private synchronized String probe() {
    return session == null
        ? unreachable(new SparkConf().get("spark.master", ""), PROBE_MILLIS)
        : null;
  }

  /**
   * Why a standalone master ({@code spark://host:port[,host:port...]}) cannot be reached, or null when
   * one of its hosts accepts a connection or the master is not standalone (YARN, Kubernetes and local
   * masters are left to Spark). Spark itself would retry registering for a minute and then fail the
   * first statement; this is one line before anything runs.
   */
  static String unreachable(String master, int timeoutMillis) {
    if (!master.startsWith("spark://")) {
      return null;
    }
    String last = null;
    for (String hostPort : master.substring("spark://".length()).split(",")) {
      String hp = hostPort.replaceFirst("^[^@]*@", "");
      int colon = hp.lastIndexOf(':');
      try (java.net.Socket probe = new java.net.Socket()) {
        String host = colon < 0 ? hp : hp.substring(0, colon);
        int port =
            colon < 0 ? 7077 : Integer.parseInt(hp.substring(colon + 1).replaceAll("/.*$", ""));
        probe.connect(new java.net.InetSocketAddress(host, port), timeoutMillis);
        return null;
      } catch (java.io.IOException | NumberFormatException e) {
        last = e.getMessage();
      }
    }
    return "cannot reach the Spark master at " + describe(master).substring("job on ".length())
        + ": " + last;
  }

  /** The master URL without user information (a password may sit there). */
  static String describe(String master) {
    return "job on " + master.replaceFirst("://[^/@]*@", "://");
  }

  static String firstLine(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t && t.getMessage() == null) {
      t = t.getCause();
    }
    String m = t.getMessage() == null ? t.getClass().getName() : t.getMessage();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  @Override
  public synchronized void close() {
    if (session != null) {
      session.stop();
    }
  }
}
