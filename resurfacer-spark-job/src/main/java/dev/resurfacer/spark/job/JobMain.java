package dev.resurfacer.spark.job;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Iterator;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * {@code spark-submit --class dev.resurfacer.spark.job.JobMain resurfacer-spark.jar maintain --config
 * resurfacer.yml [--yes]}: the resurfacer command line as a Spark application. The runnable jar rides
 * inside this one and is loaded in a class loader whose parent is the JDK's platform loader, so our
 * Iceberg core, Parquet and Hadoop never share a class loader with the cluster's Iceberg Spark runtime
 * (which bundles Iceberg's classes unshaded, wired to its relocated Parquet). Only JDK types cross
 * between the two: {@link JobSession} hands over the job's Spark session as plain functions.
 */
public final class JobMain {
  static final String RUNNABLE = "resurfacer.jar";
  static final String ENTRY = "dev.resurfacer.cli.SparkJob";

  /**
   * A runnable jar built on Linux x86_64 keeps DuckDB's native library beside it rather than inside
   * (resurfacer-cli's pom says why); DuckDB then loads it from the jar's directory, so it goes there.
   */
  static final String DUCKDB_LIBRARY = "libduckdb_java.so_linux_amd64";

  private JobMain() {}

  private static void copyDuckDbLibrary(Path dir) throws IOException {
    try (InputStream in = JobMain.class.getResourceAsStream(DUCKDB_LIBRARY)) {
      if (in != null) {
        Files.copy(in, dir.resolve(DUCKDB_LIBRARY));
      }
    }
  }

  public static void main(String[] args) throws IOException {
    Path dir = Files.createTempDirectory("resurfacer-job");
    Path jar = dir.resolve(RUNNABLE);
    int code;
    try (JobSession session = new JobSession()) {
      try (InputStream in = JobMain.class.getResourceAsStream(RUNNABLE)) {
        if (in == null) {
          throw new IllegalStateException("this job jar carries no " + RUNNABLE
              + ": build it through the reactor (mvn package)");
        }
        Files.copy(in, jar);
      }
      copyDuckDbLibrary(dir);
      code = run(jar, args, session.handedOver());
    } finally {
      Files.deleteIfExists(jar);
      Files.deleteIfExists(dir.resolve(DUCKDB_LIBRARY));
      Files.deleteIfExists(dir);
    }
    // our code may leave non-daemon threads (pools, drivers); the session is stopped, so the job
    // ends here
    System.exit(code);
  }

  /**
   * DriverManager loads the JDBC drivers of one class loader, the context loader of whichever code
   * asks first, once per JVM; and it hands a caller only the drivers of the caller's own loader. Our
   * code asks first (Spark's session starts on first use), so without this the cluster's Iceberg
   * runtime would find "no suitable driver" for its own JDBC catalog once Spark runs a statement
   * on it, and our catalogs would if Spark had asked first. Each loader's drivers are registered
   * before either side connects.
   */
  static void registerJdbcDrivers(ClassLoader... loaders) {
    for (ClassLoader loader : loaders) {
      Iterator<Driver> drivers = ServiceLoader.load(Driver.class, loader).iterator();
      while (drivers.hasNext()) {
        try {
          DriverManager.registerDriver(drivers.next());
        } catch (ServiceConfigurationError | SQLException e) {
          // as DriverManager's own loading: a driver that cannot load is one nobody can connect
          // through
          System.err.println("warning: JDBC driver not registered: " + JobSession.firstLine(e));
        }
      }
    }
  }

  private static int run(Path jar, String[] args, Map<String, Object> session) throws IOException {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    try (URLClassLoader ours = new URLClassLoader(
        "resurfacer", new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
      registerJdbcDrivers(JobMain.class.getClassLoader(), ours);
      // ServiceLoader, Hadoop and JDBC drivers look classes up through the context loader
      thread.setContextClassLoader(ours);
      Class<?> entryClass;
      Method entry;
      Method redact;
      try {
        entryClass = ours.loadClass(ENTRY);
        entry = entryClass.getMethod("run", String[].class, Map.class);
        redact = entryClass.getMethod("redact", String.class);
      } catch (ReflectiveOperationException e) {
        System.err.println(
            "error: " + RUNNABLE + " in this job jar has no " + ENTRY + ".run and .redact: " + e);
        return 1;
      }
      try {
        return (Integer) entry.invoke(null, args, session);
      } catch (InvocationTargetException e) {
        System.err.println("error: " + redacted(redact, JobSession.firstLine(e.getCause())));
        return 1;
      } catch (IllegalAccessException e) {
        System.err.println("error: cannot call " + ENTRY + ".run: " + e.getMessage());
        return 1;
      }
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  /** The line through the CLI's own redaction (credentials in URLs and key=value pairs), or nothing of it if that fails. */
  static String redacted(Method redact, String line) {
    try {
      return (String) redact.invoke(null, line);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return "the run failed (its message could not be redacted, so it is not shown)";
    }
  }
}
