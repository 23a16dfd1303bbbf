package dev.resurfacer.spark.job;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
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
  private SparkSession session;

  Map<String, Object> handedOver() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("sql", (BiFunction<String, String, List<Map<String, Object>>>) (group, sql) -> onSparksLoader(() -> rows(group, sql)));
    out.put("jobs", (Function<String, List<String>>) group -> onSparksLoader(() -> jobs(group)));
    out.put("conf", (BiConsumer<String, String>) (k, v) -> onSparksLoader(() -> {
      session().conf().set(k, v);
      return null;
    }));
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
      session = SparkSession.builder().getOrCreate();
    }
    return session;
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

  /** The job group's Spark jobs from the driver's status tracker: id, status and tasks done of all their stages. */
  private synchronized List<String> jobs(String group) {
    if (session == null) {
      return List.of();
    }
    JavaSparkStatusTracker tracker = JavaSparkContext.fromSparkContext(session.sparkContext()).statusTracker();
    List<String> out = new ArrayList<>();
    for (int jobId : tracker.getJobIdsForGroup(group)) {
      SparkJobInfo job = tracker.getJobInfo(jobId);
      if (job == null) {
        continue;
      }
      long tasks = 0;
      long done = 0;
      long running = 0;
      long failed = 0;
      for (int stageId : job.stageIds()) {
        SparkStageInfo stage = tracker.getStageInfo(stageId);
        if (stage != null) {
          tasks += stage.numTasks();
          done += stage.numCompletedTasks();
          running += stage.numActiveTasks();
          failed += stage.numFailedTasks();
        }
      }
      out.add("job " + jobId + " " + job.status().name().toLowerCase(java.util.Locale.ROOT) + " (" + job.stageIds().length
          + " stage(s), " + done + "/" + tasks + " task(s) done" + (running > 0 ? ", " + running + " running" : "")
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
      scala.jdk.javaapi.CollectionConverters.asJava(m).forEach((k, v) -> out.put(plain(k), plain(v)));
      return out;
    }
    if (value instanceof scala.collection.Seq<?> seq) {
      List<Object> out = new ArrayList<>();
      scala.jdk.javaapi.CollectionConverters.asJava(seq).forEach(v -> out.add(plain(v)));
      return out;
    }
    return value;
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
